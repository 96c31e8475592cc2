/**
 * What a log line keeps of an error: its class, message, code and the same of its causes,
 * without the stack. Logs carry no stack traces (the developers' guide): a line says which
 * failure it was, and a stack would show the code's paths to whoever reads the logs.
 */
export interface ErrorFields {
  type: string;
  message: string;
  code?: string | number;
  cause?: ErrorFields;
  /** An AggregateError's errors. */
  errors?: ErrorFields[];
}

const MAX_DEPTH = 5;

/** pino's `err` serializer: an Error as its fields; anything else (a message) as it is. */
export function serializeErr(value: unknown): unknown {
  return value instanceof Error ? errorFields(value) : value;
}

export function errorFields(error: unknown, depth = 0): ErrorFields {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const fields: ErrorFields = { type: error.name || error.constructor.name, message: error.message };
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' || typeof code === 'number') fields.code = code;
  if (depth < MAX_DEPTH) {
    if (error.cause !== undefined) fields.cause = errorFields(error.cause, depth + 1);
    if (error instanceof AggregateError && Array.isArray(error.errors))
      fields.errors = error.errors.slice(0, 5).map((inner) => errorFields(inner, depth + 1));
  }
  return fields;
}
