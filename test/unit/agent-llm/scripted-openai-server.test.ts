import { afterEach, describe, expect, test } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
  validateRequest,
} from '../../helpers/scripted-openai-server.ts';

// The helper stands in for real providers, so its wire format is checked on its own too.

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ErrorBody = { error: { type: string; message: string } };

const tool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
  type: 'function',
  function: { name, parameters },
});

describe('scripted server wire format', () => {
  test('streams text and split tool-call arguments as chat.completion.chunk events, then usage and [DONE]', async () => {
    server = await startScriptedOpenAIServer(
      [{ text: 'Hello there', toolCalls: [{ name: 'read_file', arguments: { path: 'docs/index.md' } }] }],
      { textChunkSize: 4, argumentsChunkSize: 5 },
    );
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [tool('read_file', { type: 'object', properties: { path: { type: 'string' } } })],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const deltas = chunks.flatMap((c) => c.choices.map((choice: { delta: unknown }) => choice.delta));
    const text = deltas.map((d) => d.content ?? '').join('');
    expect(text).toBe('Hello there');
    const argumentPieces = deltas.flatMap((d) => d.tool_calls ?? []).map((t) => t.function.arguments);
    expect(argumentPieces.length).toBeGreaterThan(3);
    expect(JSON.parse(argumentPieces.join(''))).toEqual({ path: 'docs/index.md' });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
  });

  test('answers with the scripted error status and Retry-After', async () => {
    server = await startScriptedOpenAIServer([{ error: { status: 429, retryAfter: '7' } }]);
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(((await response.json()) as ErrorBody).error.type).toBe('rate_limit_exceeded');
  });

  test('an exhausted script answers 500 so a test sees the surprise', async () => {
    server = await startScriptedOpenAIServer([]);
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(500);
    expect(((await response.json()) as ErrorBody).error.message).toMatch(/no reply left/);
  });

  test('refuses malformed requests with 400', async () => {
    server = await startScriptedOpenAIServer([{ text: 'never sent' }]);
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(response.status).toBe(400);
    expect(server.requests[0]?.problems).toEqual(['messages must be a non-empty array']);
    expect(server.remaining()).toBe(1);
  });
});

describe('validateRequest', () => {
  const user = { role: 'user', content: 'hi' };
  const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } };

  test('accepts a well-formed tool conversation', () => {
    expect(
      validateRequest({
        model: 'm',
        messages: [
          { role: 'system', content: 's' },
          user,
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'tool', tool_call_id: 'c1', content: 'file' },
          { role: 'assistant', content: 'done' },
        ],
        tools: [tool('read_file')],
      }),
    ).toEqual([]);
  });

  test.each([
    ['no model', { messages: [user] }, /model must be/],
    ['an unknown role', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, /role must be one of/],
    [
      'a tool reply to no call',
      { model: 'm', messages: [user, { role: 'tool', tool_call_id: 'x', content: 'r' }] },
      /must answer a tool call/,
    ],
    [
      'an unanswered tool call',
      { model: 'm', messages: [user, { role: 'assistant', tool_calls: [call] }, user] },
      /before the tool calls c1 were answered/,
    ],
    [
      'arguments that are not JSON',
      {
        model: 'm',
        messages: [
          user,
          { role: 'assistant', tool_calls: [{ ...call, function: { name: 'x', arguments: '{' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'r' },
        ],
      },
      /arguments is not JSON/,
    ],
    [
      'a tool without parameters',
      { model: 'm', messages: [user], tools: [{ type: 'function', function: { name: 'x' } }] },
      /parameters must be a JSON schema/,
    ],
    [
      'an invalid JSON schema',
      {
        model: 'm',
        messages: [user],
        tools: [tool('x', { type: 'object', properties: { a: { type: 'nonsense' } } })],
      },
      /not a valid JSON schema/,
    ],
    ['a bad tool name', { model: 'm', messages: [user], tools: [tool('read file')] }, /name must match/],
    ['a duplicate tool', { model: 'm', messages: [user], tools: [tool('x'), tool('x')] }, /used twice/],
    [
      'stream_options without stream',
      { model: 'm', messages: [user], stream_options: { include_usage: true } },
      /only allowed when stream/,
    ],
  ])('refuses %s', (_name, body, problem) => {
    expect(validateRequest(body).join('\n')).toMatch(problem);
  });
});
