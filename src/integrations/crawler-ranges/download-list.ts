/** Limits on one published list: they are tens of kilobytes, so anything past these is wrong. */
export interface DownloadLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Plain HTTP is refused unless allowed (a local mirror or test server given on purpose). */
  allowHttp: boolean;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  timeoutMs: 15_000,
  maxBytes: 4 * 1024 * 1024,
  allowHttp: false,
};

/** The body of `url` as text, or an error that says what went wrong (status, size, timeout). */
export async function downloadList(
  url: string,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
): Promise<string> {
  checkScheme(url, limits);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } });
  } catch (error) {
    const cause =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${limits.timeoutMs / 1000} s`
        : causeOf(error);
    throw new Error(`${url}: ${cause}`);
  }
  // A redirect must not lead from HTTPS to plain HTTP.
  checkScheme(response.url || url, limits);
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) {
    await response.body?.cancel();
    throw new Error(`${url}: ${declared} bytes, more than the ${limits.maxBytes} allowed`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) throw new Error(`${url}: more than the ${limits.maxBytes} bytes allowed`);
      chunks.push(chunk);
    }
  } catch (error) {
    await response.body?.cancel().catch(() => {});
    if ((error as Error).name === 'TimeoutError')
      throw new Error(`${url}: no answer within ${limits.timeoutMs / 1000} s`);
    throw error;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function checkScheme(url: string, limits: DownloadLimits): void {
  const { protocol } = new URL(url);
  if (protocol === 'https:' || (protocol === 'http:' && limits.allowHttp)) return;
  throw new Error(`${url}: only HTTPS is allowed`);
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
