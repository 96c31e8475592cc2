import { APICallError, StreamProviderError } from 'ai';

/** What to do about an error from a model call. */
export type ErrorVerdict =
  | { kind: 'retry'; status: number | undefined; retryAfterMs: number | undefined; description: string }
  | { kind: 'fail'; reason: string };

export interface ModelIdentity {
  provider: string;
  modelId: string;
}

/**
 * Sorts a model call's error: rate limits, overload, server errors and dropped connections
 * are worth retrying; refused credentials, an unknown model and bad requests are not.
 * Reasons are meant for the job's API response, so they carry no secrets.
 */
export function judgeModelError(error: unknown, model: ModelIdentity): ErrorVerdict {
  const status = statusOf(error);
  const providerMessage = sanitize(messageOf(error));
  const source = `${model.provider} model "${model.modelId}"`;
  if (status === 401 || status === 403) {
    // Provider messages for refused keys may echo part of the key: leave them out.
    return {
      kind: 'fail',
      reason:
        `The model provider refused the credentials (HTTP ${status}) for ${source}. ` +
        `Check ${keySettingHint(model.provider)}.`,
    };
  }
  if (status === 404) {
    return {
      kind: 'fail',
      reason:
        `The model provider does not know ${source} (HTTP 404: ${providerMessage}). ` +
        'Check the model id in DOCWRIGHT_MODEL or the project setting, and the provider base URL.',
    };
  }
  const retryable =
    (APICallError.isInstance(error) || StreamProviderError.isInstance(error)) &&
    (error.isRetryable || status === 429 || (status !== undefined && status >= 500));
  if (retryable) {
    return {
      kind: 'retry',
      status,
      retryAfterMs: retryAfterMs(error),
      description: status === undefined ? providerMessage : `HTTP ${status}: ${providerMessage}`,
    };
  }
  if (status !== undefined) {
    return {
      kind: 'fail',
      reason: `The model provider rejected the request (HTTP ${status}): ${providerMessage}`,
    };
  }
  return { kind: 'fail', reason: `The model call failed: ${providerMessage}` };
}

function statusOf(error: unknown): number | undefined {
  if (APICallError.isInstance(error) || StreamProviderError.isInstance(error)) return error.statusCode;
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The delay a provider asked for, from `retry-after-ms` or `retry-after` (seconds or a date). */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  const headers = APICallError.isInstance(error) ? error.responseHeaders : undefined;
  if (!headers) return undefined;
  const header = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)?.[1]
      ?.trim() ?? undefined;
  const ms = header('retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const after = header('retry-after');
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function keySettingHint(provider: string): string {
  const family = provider.split('.')[0];
  if (family === 'anthropic') return 'ANTHROPIC_API_KEY';
  if (family === 'openai') return 'OPENAI_API_KEY';
  if (family === 'openai-compatible')
    return 'DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY and the server it points at';
  return "the provider's API key";
}

const MAX_MESSAGE_CHARS = 500;

/**
 * Removes anything that looks like a credential from provider text before it is stored or
 * shown: API keys, bearer tokens, key query parameters and passwords in URLs.
 */
export function sanitize(text: string): string {
  const cleaned = text
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]')
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/([?&](?:api[-_]?key|key|token|access_token)=)[^&\s]+/gi, '$1[redacted]')
    .replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1[redacted]@')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > MAX_MESSAGE_CHARS ? `${cleaned.slice(0, MAX_MESSAGE_CHARS)}…` : cleaned;
}
