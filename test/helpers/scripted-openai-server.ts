import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';

/**
 * An OpenAI-compatible chat completions server for tests. It replays a script of replies,
 * streamed the way real servers stream them (SSE `chat.completion.chunk` lines, tool-call
 * arguments split across chunks, a usage chunk when asked for, `data: [DONE]`), records
 * every request, and refuses malformed ones with 400 the way the real API does, so the
 * real provider client, the tool loop and the parsing are all exercised.
 */

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as is (to script malformed arguments). */
  arguments: unknown;
  id?: string;
}

export interface ScriptedCompletion {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: 'tool_calls' when there are tool calls, else 'stop'. */
  finishReason?: string;
  /**
   * Token counts to report, cachedTokens in prompt_tokens_details.cached_tokens. Default:
   * estimated from the request and reply sizes (about four characters a token).
   */
  usage?: Usage;
  /**
   * Stream the first chunk, then hold the response open until the client goes away
   * (for abort and time-limit tests).
   */
  hang?: boolean;
  /** Pause before each streamed chunk, in milliseconds. */
  chunkDelayMs?: number;
}

export interface ScriptedError {
  error: {
    status: number;
    message?: string;
    type?: string;
    code?: string;
    /** Sent as the Retry-After header. */
    retryAfter?: string;
  };
}

export type ScriptedReply = ScriptedCompletion | ScriptedError;
/** A reply, or a function that makes one; a promise holds the reply back until it settles. */
export type ScriptStep =
  | ScriptedReply
  | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: ChatCompletionRequest;
  /** Shape problems found in the request; non-empty means it was answered with 400. */
  problems: string[];
}

export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters: unknown } }>;
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  [key: string]: unknown;
}

export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface ScriptedServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  apiKey?: string;
  /** When set, any other model gets 404 model_not_found. */
  models?: string[];
  /** Characters of text per streamed chunk (default 7, so words split across chunks). */
  textChunkSize?: number;
  /** Characters of tool-call arguments per streamed chunk (default 9). */
  argumentsChunkSize?: number;
}

export interface ScriptedOpenAIServer {
  /** Base URL to hand to the provider, ending in /v1. */
  baseUrl: string;
  /** Every request received, in order, including refused ones. */
  requests: RecordedRequest[];
  /** Appends replies to the script. */
  push(...steps: ScriptStep[]): void;
  /** Replies not yet used. */
  remaining(): number;
  close(): Promise<void>;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export async function startScriptedOpenAIServer(
  script: ScriptStep[] = [],
  options: ScriptedServerOptions = {},
): Promise<ScriptedOpenAIServer> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let counter = 0;

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted server failed: ${String(error)}`, 'server_error');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = null;
    }
    const known = req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions');
    const problems = known ? validateRequest(body) : [`unknown endpoint ${req.method} ${path}`];
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path,
      headers: req.headers,
      body: (body ?? {}) as ChatCompletionRequest,
      problems,
    };
    requests.push(recorded);
    if (!known) {
      sendError(res, 404, `Unknown endpoint ${req.method} ${path}`, 'invalid_request_error');
      return;
    }

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      return;
    }
    if (problems.length > 0) {
      sendError(res, 400, problems.join('; '), 'invalid_request_error');
      return;
    }
    const request = recorded.body;
    if (options.models !== undefined && !options.models.includes(request.model)) {
      sendError(
        res,
        404,
        `The model \`${request.model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        'model_not_found',
      );
      return;
    }
    const step = queue.shift();
    if (step === undefined) {
      sendError(res, 500, 'scripted server: the script has no reply left for this request', 'server_error');
      return;
    }
    const reply = typeof step === 'function' ? await step(recorded) : step;
    if ('error' in reply) {
      const { status, message, type, code, retryAfter } = reply.error;
      if (retryAfter !== undefined) res.setHeader('retry-after', retryAfter);
      sendError(res, status, message ?? `scripted error ${status}`, type ?? errorType(status), code);
      return;
    }
    const id = `chatcmpl-scripted-${++counter}`;
    const usage = usageFor(request, reply);
    if (request.stream === true) {
      await streamReply(res, id, request, reply, usage, options);
    } else {
      sendJson(res, 200, completionBody(id, request.model, reply, usage));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...steps) => {
      queue.push(...steps);
    },
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function streamReply(
  res: ServerResponse,
  id: string,
  request: ChatCompletionRequest,
  reply: ScriptedCompletion,
  usage: Usage,
  options: ScriptedServerOptions,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const includeUsage = request.stream_options?.include_usage === true;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    system_fingerprint: 'fp_scripted',
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);

  const chunks: unknown[] = [delta({ role: 'assistant', content: '', refusal: null })];
  for (const piece of split(reply.reasoning ?? '', options.textChunkSize ?? 7)) {
    chunks.push(delta({ reasoning_content: piece }));
  }
  for (const piece of split(reply.text ?? '', options.textChunkSize ?? 7))
    chunks.push(delta({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    chunks.push(
      delta({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${id.slice(-4)}_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const piece of split(args, options.argumentsChunkSize ?? 9)) {
      chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(delta({}, finishReasonOf(reply)));
  if (includeUsage) {
    chunks.push(chunk([], { usage: usageBody(usage) }));
  }

  if (reply.hang === true) {
    res.write(`data: ${JSON.stringify(chunks[0])}\n\n`);
    await new Promise<void>((resolve) => res.on('close', () => resolve()));
    return;
  }
  for (const c of chunks) {
    if (reply.chunkDelayMs !== undefined) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
    if (res.destroyed) return;
    res.write(`data: ${JSON.stringify(c)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

function completionBody(id: string, model: string, reply: ScriptedCompletion, usage: Usage) {
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${id.slice(-4)}_${index}`,
    type: 'function',
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_scripted',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(reply),
      },
    ],
    usage: usageBody(usage),
  };
}

function finishReasonOf(reply: ScriptedCompletion): string {
  return reply.finishReason ?? ((reply.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
}

function usageFor(request: ChatCompletionRequest, reply: ScriptedCompletion) {
  if (reply.usage) return reply.usage;
  const output = (reply.text ?? '') + JSON.stringify(reply.toolCalls ?? []);
  return {
    promptTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
    completionTokens: Math.ceil(output.length / 4),
  };
}

interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

function usageBody({ promptTokens, completionTokens, cachedTokens }: Usage) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: cachedTokens } }),
  };
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code?: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: code ?? null } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const ajv = new Ajv({ strict: false });

/** Checks a request the way the chat completions API would, returning what is wrong. */
export function validateRequest(body: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(body)) return ['the body is not a JSON object'];
  if (typeof body.model !== 'string' || body.model === '') problems.push('model must be a non-empty string');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    problems.push('stream must be a boolean');
  if (body.stream_options !== undefined && body.stream !== true) {
    problems.push('stream_options is only allowed when stream is true');
  }
  const toolNames = new Set<string>();
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      problems.push('tools must be a non-empty array when present');
    } else {
      body.tools.forEach((tool: unknown, i: number) => {
        if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
          problems.push(`tools[${i}] must be {"type":"function","function":{…}}`);
          return;
        }
        const fn = tool.function;
        if (typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) {
          problems.push(`tools[${i}].function.name must match ${TOOL_NAME}`);
        } else if (toolNames.has(fn.name)) {
          problems.push(`tools[${i}].function.name "${fn.name}" is used twice`);
        } else {
          toolNames.add(fn.name);
        }
        if (fn.description !== undefined && typeof fn.description !== 'string') {
          problems.push(`tools[${i}].function.description must be a string`);
        }
        const parameters = fn.parameters;
        if (!isObject(parameters) || parameters.type !== 'object') {
          problems.push(`tools[${i}].function.parameters must be a JSON schema of type "object"`);
        } else {
          try {
            ajv.compile(parameters);
          } catch (error) {
            problems.push(
              `tools[${i}].function.parameters is not a valid JSON schema: ${(error as Error).message}`,
            );
          }
        }
      });
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    problems.push('messages must be a non-empty array');
    return problems;
  }
  const openCalls = new Set<string>();
  body.messages.forEach((message: unknown, i: number) => {
    if (!isObject(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      problems.push(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`);
      return;
    }
    const { role, content } = message;
    // Every tool call must be answered before the conversation moves on.
    if (role !== 'tool' && openCalls.size > 0) {
      problems.push(`messages[${i}] comes before the tool calls ${[...openCalls].join(', ')} were answered`);
      openCalls.clear();
    }
    if (role === 'assistant') {
      const calls = message.tool_calls;
      if (calls !== undefined) {
        if (!Array.isArray(calls)) {
          problems.push(`messages[${i}].tool_calls must be an array`);
        } else {
          calls.forEach((call: unknown, j: number) => {
            const where = `messages[${i}].tool_calls[${j}]`;
            if (
              !isObject(call) ||
              typeof call.id !== 'string' ||
              call.type !== 'function' ||
              !isObject(call.function) ||
              typeof call.function.name !== 'string' ||
              typeof call.function.arguments !== 'string'
            ) {
              problems.push(`${where} must be {id, type:"function", function:{name, arguments:string}}`);
              return;
            }
            try {
              JSON.parse(call.function.arguments);
            } catch {
              problems.push(`${where}.function.arguments is not JSON`);
            }
            openCalls.add(call.id);
          });
        }
      } else if (!isContent(content)) {
        problems.push(`messages[${i}] (assistant) needs content or tool_calls`);
      }
    } else if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !openCalls.has(message.tool_call_id)) {
        problems.push(`messages[${i}].tool_call_id must answer a tool call of an earlier assistant message`);
      } else {
        openCalls.delete(message.tool_call_id);
      }
      if (!isContent(content)) problems.push(`messages[${i}].content must be a string or content parts`);
    } else if (!isContent(content)) {
      problems.push(`messages[${i}].content must be a string or content parts`);
    }
  });
  if (openCalls.size > 0)
    problems.push(`tool calls ${[...openCalls].join(', ')} have no tool message answering them`);
  return problems;
}

function isContent(content: unknown): boolean {
  return (
    typeof content === 'string' ||
    (Array.isArray(content) && content.every((part) => isObject(part) && typeof part.type === 'string'))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
