import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { compileRequestSchema, jsonBodyParser } from './validation.ts';

/** A JSON body left as text for another thread to parse (see `acceptUnparsedJson`). */
export class UnparsedJsonBody {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type BodyValidator = ((value: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/**
 * Lets the one route of this (encapsulated) context receive JSON bodies for which `unparsed` says
 * so as `UnparsedJsonBody`, unparsed and unvalidated, and every other body as usual. Returns the
 * route option `validatorCompiler` that route must use, and `parse`, which parses and
 * validates such a body on this thread, failing as Fastify would have: handlers call it when
 * the other thread did not take the body, so every error reads as on every other route.
 */
export function acceptUnparsedJson(
  app: FastifyInstance,
  unparsed: (length: number) => boolean,
): { validatorCompiler: FastifySchemaCompiler<unknown>; parse: (body: UnparsedJsonBody) => unknown } {
  const parseJson = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (unparsed(text.length)) done(null, new UnparsedJsonBody(text));
    else parseJson(request, text, done);
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
    parseJson({} as never, body.text, (error, parsed) => {
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
