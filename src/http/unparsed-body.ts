import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { compileRequestSchema, jsonBodyParser } from './validation.ts';

/**
 * A JSON body left as received, undecoded, for another thread to decode and parse (see
 * `acceptUnparsedJson`): decoding a large body costs this thread about as much as parsing it.
 */
export class UnparsedJsonBody {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}

type BodyValidator = ((value: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/**
 * Lets the one route of this (encapsulated) context receive JSON bodies for which `unparsed` says
 * so (given their length in bytes) as `UnparsedJsonBody`, undecoded, unparsed and unvalidated,
 * and every other body as usual. Returns the route option `validatorCompiler` that route must
 * use, and `parse`, which decodes, parses and validates such a body on this thread, failing as Fastify would have: handlers call it when
 * the other thread did not take the body, so every error reads as on every other route.
 */
export function acceptUnparsedJson(
  app: FastifyInstance,
  unparsed: (bytes: number) => boolean,
): { validatorCompiler: FastifySchemaCompiler<unknown>; parse: (body: UnparsedJsonBody) => unknown } {
  const parseJson = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  // Fastify decodes a body read as a string with this same `toString('utf8')`.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (unparsed(bytes.length)) done(null, new UnparsedJsonBody(bytes));
    else parseJson(request, bytes.toString('utf8'), done);
  });

  let bodyValidator: BodyValidator | null = null;
  const validatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
    const compiled = compileRequestSchema(route) as BodyValidator;
    if (route.httpPart !== 'body') return compiled;
    bodyValidator = compiled;
    const passUnparsed: BodyValidator = (value) => {
      if (value instanceof UnparsedJsonBody) return true;
      const valid = compiled(value);
      passUnparsed.errors = compiled.errors;
      return valid;
    };
    return passUnparsed;
  };

  const parse = (body: UnparsedJsonBody): unknown => {
    let value: unknown;
    let failure: Error | null = null;
    // Fastify's JSON parser answers synchronously and reads nothing of the request.
    parseJson({} as never, body.bytes.toString('utf8'), (error, parsed) => {
      failure = error;
      value = parsed;
    });
    if (failure) throw failure;
    if (bodyValidator && !bodyValidator(value)) {
      throw Object.assign(new Error('body validation failed'), {
        validation: bodyValidator.errors,
        validationContext: 'body',
        statusCode: 400,
      });
    }
    return value;
  };
  return { validatorCompiler, parse };
}
