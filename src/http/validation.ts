import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * Query strings and path parameters arrive as text and must be coerced ("20" → 20);
 * JSON bodies must not be, or `{"prompt": 42}` would pass as the string "42".
 */
export function installValidators(app: FastifyInstance): void {
  const base: Options = { allErrors: true, removeAdditional: true, useDefaults: true, strict: false };
  const strict = addFormats.default(new Ajv({ ...base, coerceTypes: false }));
  const coercing = addFormats.default(new Ajv({ ...base, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}
