import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type {
  FastifyBodyParser,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaCompiler,
  RouteOptions,
} from 'fastify';
import { DomainError } from '../domain/errors.ts';

/**
 * Query strings and path parameters arrive as text and must be coerced ("20" → 20);
 * JSON bodies must not be, or `{"prompt": 42}` would pass as the string "42". Nothing is
 * removed or ignored: an unknown field is an error (see `refuseUnknownFields`).
 */
export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(compileRequestSchema);
}

const base: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };
const strict = addFormats.default(new Ajv({ ...base, coerceTypes: false }));
const coercing = addFormats.default(new Ajv({ ...base, coerceTypes: 'array' }));

/** The API's validator for one part of a request (see installValidators). */
export const compileRequestSchema: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);

/**
 * JSON bodies, with one leniency: an empty body is an empty object. Many clients send
 * `Content-Type: application/json` on every request, also on those that carry nothing.
 */
export function installJsonParser(app: FastifyInstance): void {
  const parseJson = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    parseJson(request, body as string, done),
  );
}

/** The API's JSON body parsing (see installJsonParser), for a context that adds its own parser. */
export function jsonBodyParser(app: FastifyInstance): FastifyBodyParser<string> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (body.trim() === '') {
      done(null, {});
      return;
    }
    parseJson(request, body, done);
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Makes every request schema of an API route refuse what it does not declare: objects in
 * bodies and query strings get `additionalProperties: false` (so /openapi.json says so too),
 * an API route without a query schema takes no query parameters, and a route without a body
 * schema refuses a JSON body with fields. Run from an onRoute hook, before the schemas compile.
 */
export function refuseUnknownFields(route: RouteOptions): void {
  route.schema ??= {};
  const schema = route.schema as { body?: unknown; querystring?: unknown };
  if (schema.body !== undefined) closeObjects(schema.body);
  if (schema.querystring !== undefined) closeObjects(schema.querystring);
  else if (/^\/(v1|v2|review|dashboard\/api)\//.test(route.url)) {
    schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
  }
  const methods = [route.method].flat();
  if (schema.body === undefined && methods.some((m) => BODY_METHODS.has(m))) {
    route.preValidation = [refuseJsonBody, ...[route.preValidation ?? []].flat()];
  }
}

function refuseJsonBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const body = request.body;
  const json = /\bjson\b/.test(request.headers['content-type'] ?? '');
  if (json && typeof body === 'object' && body !== null && Object.keys(body).length > 0) {
    const fields = Object.keys(body)
      .map((f) => `"${f}"`)
      .join(', ');
    done(new DomainError('invalid', `This endpoint takes no request body; unknown field ${fields}`));
    return;
  }
  done();
}

/** Sets `additionalProperties: false` on every object schema that says nothing about it. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) closeObjects(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'object' && schema.properties !== undefined && !('additionalProperties' in schema)) {
    schema.additionalProperties = false;
  }
  for (const key of ['properties', 'items', 'anyOf', 'oneOf', 'allOf']) {
    const child = schema[key];
    if (key === 'properties' && child && typeof child === 'object') {
      for (const value of Object.values(child)) closeObjects(value);
    } else if (child !== undefined) closeObjects(child);
  }
}
