import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type WebPage, WebReadError, type WebReader } from '../../domain/agent/research/web-reader.ts';
import { type OutboundPolicy, refusalMessage } from '../../domain/network/outbound-policy.ts';
import { ForbiddenAddressError, policyLookup } from '../network/guarded-lookup.ts';

export interface HttpWebReaderOptions {
  /** Where connections may go (DOCWRIGHT_ALLOW_PRIVATE_NETWORKS): public addresses only by default. */
  policy: OutboundPolicy;
  /** For the whole read: every redirect, the headers and the body. */
  timeoutMs?: number;
  /** The most bytes of body read, after decompression; a larger page is refused. */
  maxBodyBytes?: number;
  maxRedirects?: number;
}

export const DEFAULT_WEB_LIMITS = { timeoutMs: 15_000, maxBodyBytes: 5 * 1024 * 1024, maxRedirects: 5 };

export const WEB_READER_USER_AGENT =
  'Docwright-WebResearch/1.0 (documentation agent; +https://github.com/docwright/docwright/blob/main/docs/jobs.md)';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Text that is not text/*: read as it is (JSON pretty-printed). */
const OTHER_TEXT_TYPES = new Set([
  'application/json',
  'application/yaml',
  'application/x-yaml',
  'application/xml',
]);
/** The converter thread's heap: a pathological page fails on its own rather than exhausting the process. */
const CONVERTER_HEAP_MB = 1024;
const ACCEPT =
  'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1';

/**
 * Reads web pages for fetch_url under the outgoing-network policy: every socket is opened
 * through a lookup that drops the addresses the policy refuses (so the address checked is
 * the address connected to, and DNS rebinding cannot slip through) and a literal IP is judged
 * before connecting; redirects are followed by hand, each hop through the same check, http
 * and https only. One time limit covers the whole read; the body is counted as it streams
 * (after decompression, so a small compressed bomb is stopped too) and the read is abandoned
 * past the size limit. Only text is read: HTML becomes Markdown, in a worker thread within
 * the same time limit; other types are refused before their body is read.
 */
export class HttpWebReader implements WebReader {
  private readonly policy: OutboundPolicy;
  private readonly limits: typeof DEFAULT_WEB_LIMITS;
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };

  constructor(options: HttpWebReaderOptions) {
    this.policy = options.policy;
    this.limits = {
      timeoutMs: options.timeoutMs ?? DEFAULT_WEB_LIMITS.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_WEB_LIMITS.maxBodyBytes,
      maxRedirects: options.maxRedirects ?? DEFAULT_WEB_LIMITS.maxRedirects,
    };
    const lookup = this.policy.allowsAll ? {} : { lookup: policyLookup(this.policy) };
    this.agents = { 'http:': new http.Agent(lookup), 'https:': new https.Agent(lookup) };
  }

  async read(url: string, signal?: AbortSignal): Promise<WebPage> {
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const progress = { converting: false };
    try {
      return await this.follow(new URL(url), combined, progress);
    } catch (error) {
      // The turn's own cancellation goes up as it is; the time limit is the page's fault.
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        const seconds = this.limits.timeoutMs / 1000;
        throw new WebReadError(
          progress.converting
            ? `${url} could not be turned into text within ${seconds} s: the page is too large or too complex`
            : `${url} did not answer in full within ${seconds} s`,
        );
      }
      throw error instanceof WebReadError
        ? error
        : new WebReadError(`${url} could not be read: ${describe(error)}`);
    }
  }

  private async follow(start: URL, signal: AbortSignal, progress: { converting: boolean }): Promise<WebPage> {
    let url = start;
    for (let hop = 0; ; hop++) {
      const res = await this.get(url, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.resume();
        if (hop === this.limits.maxRedirects) {
          throw new WebReadError(`${start.href} redirects more than ${this.limits.maxRedirects} times`);
        }
        const next = URL.parse(location, url.href);
        if (next === null || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
          throw new WebReadError(`${url.href} redirects to ${location}, which is not an http or https URL`);
        }
        next.hash = '';
        url = next;
        continue;
      }
      return this.page(url, res, signal, progress);
    }
  }

  private get(url: URL, signal: AbortSignal): Promise<IncomingMessage> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return Promise.reject(new WebReadError(`only http and https URLs can be read, not ${url.protocol}`));
    }
    // Node connects to a literal IP without a lookup: it is judged here.
    const literal = this.policy.literalRefusal(url.hostname);
    if (literal) return Promise.reject(new ForbiddenAddressError(refusalMessage(literal)));
    const protocol = url.protocol;
    const send = protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(url, {
        method: 'GET',
        agent: this.agents[protocol],
        signal,
        headers: {
          'user-agent': WEB_READER_USER_AGENT,
          accept: ACCEPT,
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
  }

  private async page(
    url: URL,
    res: IncomingMessage,
    signal: AbortSignal,
    progress: { converting: boolean },
  ): Promise<WebPage> {
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      res.resume();
      throw new WebReadError(
        `${url.href} answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`,
      );
    }
    const [type = '', ...params] = (res.headers['content-type'] ?? '').split(';');
    const contentType = type.trim().toLowerCase();
    if (!isText(contentType)) {
      res.resume();
      throw new WebReadError(
        `${url.href} is ${contentType || 'of no stated type'}; fetch_url reads text only (HTML, Markdown, plain text, JSON, YAML, XML)`,
      );
    }
    const declared = Number(res.headers['content-length']);
    if (res.headers['content-encoding'] === undefined && declared > this.limits.maxBodyBytes) {
      res.resume();
      throw new WebReadError(`${url.href} is ${declared} bytes, over the ${this.tooLarge()}`);
    }
    const bytes = await this.body(url, res, signal);
    const text = decode(bytes, charsetOf(params));
    if (HTML_TYPES.has(contentType)) {
      progress.converting = true;
      const { title, markdown } = await convertHtml(text, url.href, signal);
      return { url: url.href, title, contentType, text: markdown };
    }
    return { url: url.href, title: null, contentType, text: isJson(contentType) ? prettyJson(text) : text };
  }

  /** The body, decompressed, refused as soon as it passes the size limit. */
  private async body(url: URL, res: IncomingMessage, signal: AbortSignal): Promise<Buffer> {
    const stream = decompressed(res);
    if (stream === null) {
      res.resume();
      throw new WebReadError(
        `${url.href} is sent with an encoding fetch_url cannot read (${res.headers['content-encoding']})`,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of stream.iterator({ destroyOnReturn: true }) as AsyncIterable<Buffer>) {
        signal.throwIfAborted();
        size += chunk.length;
        if (size > this.limits.maxBodyBytes) {
          throw new WebReadError(`${url.href} is larger than the ${this.tooLarge()}`);
        }
        chunks.push(chunk);
      }
    } finally {
      res.destroy();
    }
    return Buffer.concat(chunks);
  }

  private tooLarge(): string {
    return `${Math.round(this.limits.maxBodyBytes / 1024 / 1024)} MB fetch_url reads at most`;
  }

  /** Lets go of kept sockets (none are kept alive; for symmetry with the other clients). */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

type ConverterReply =
  | { ok: true; page: { title: string | null; markdown: string } }
  | { ok: false; message: string };

/** HTML to Markdown in a worker thread (html-to-markdown-worker.ts), terminated when `signal` aborts. */
function convertHtml(
  html: string,
  url: string,
  signal: AbortSignal,
): Promise<{ title: string | null; markdown: string }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const worker = new Worker(new URL('./html-to-markdown-worker.ts', import.meta.url), {
      workerData: { html, url },
      resourceLimits: { maxOldGenerationSizeMb: CONVERTER_HEAP_MB },
    });
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
    };
    const onAbort = () => {
      done();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: ConverterReply) => {
      done();
      if (reply.ok) resolve(reply.page);
      else reject(new WebReadError(`${url} could not be turned into text (${reply.message})`));
    });
    worker.once('error', (error) => {
      done();
      const tooBig = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      reject(
        new WebReadError(
          tooBig
            ? `${url} could not be turned into text: the page is too large or too complex`
            : `${url} could not be turned into text`,
        ),
      );
    });
  });
}

function isText(type: string): boolean {
  return (
    type.startsWith('text/') || OTHER_TEXT_TYPES.has(type) || /^application\/[\w.-]+\+(json|xml)$/.test(type)
  );
}

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function decompressed(res: IncomingMessage): Readable | null {
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return res;
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (decoder === null) return null;
  // Errors of either side surface while reading the decompressed stream.
  res.on('error', (error) => decoder.destroy(error));
  return res.pipe(decoder);
}

function charsetOf(params: string[]): string {
  for (const param of params) {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() === 'charset' && value) return value.trim().replace(/^"|"$/g, '');
  }
  return 'utf-8';
}

function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is the web's default.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** A connection failure in words, without the stack or anything of this machine. */
function describe(error: unknown): string {
  if (error instanceof ForbiddenAddressError) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET') return 'the connection was reset';
  if (code === 'ETIMEDOUT') return 'the connection timed out';
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code))
    return `the TLS certificate was not accepted (${code})`;
  if (typeof code === 'string' && code.startsWith('Z_')) return 'its compressed body is corrupt';
  return error instanceof Error ? error.message : String(error);
}
