import { afterEach, describe, expect, test } from 'vitest';
import { type AgentLoopInput, runAgentLoop } from '../../../src/domain/agent/llm/run-agent-loop.ts';
import type { ConversationMessage } from '../../../src/domain/jobs/conversation.ts';
import { createLanguageModel } from '../../../src/integrations/models/create-model.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { toyTools } from './toy-tools.ts';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const LIMITS = { maxSteps: 20, maxTokens: 1_000_000, maxDurationMs: 20_000 };
const FAST_RETRY = { initialDelayMs: 1, maxDelayMs: 5 };

async function run(
  script: ScriptStep[],
  options: {
    server?: ScriptedServerOptions;
    apiKey?: string;
    files?: Map<string, string>;
    loop?: Partial<AgentLoopInput>;
    modelId?: string;
  } = {},
) {
  server = await startScriptedOpenAIServer(script, options.server);
  const files = options.files ?? new Map([['guide.md', '# Instal\n\nRun the installer.\n']]);
  const calls: string[] = [];
  const model = createLanguageModel(`openai-compatible:${options.modelId ?? 'scripted-model'}`, {
    openaiCompatibleBaseUrl: server.baseUrl,
    openaiCompatibleApiKey: options.apiKey ?? null,
  });
  const result = await runAgentLoop({
    model,
    system: 'You are a test agent.',
    history: [],
    prompt: 'Fix the typo in the guide heading.',
    tools: toyTools(files, calls),
    limits: LIMITS,
    signal: new AbortController().signal,
    retry: FAST_RETRY,
    ...options.loop,
  });
  return { result, files, calls, requests: server.requests };
}

const finishCall = (
  summary = 'Fixed the heading.',
  title = 'Fix heading typo',
  body = 'Corrects "Instal".',
) => ({
  name: 'finish',
  arguments: { summary, pull_request_title: title, pull_request_body: body },
});
const readGuide = { name: 'read_file', arguments: { path: 'guide.md' } };

describe('runAgentLoop over a streamed OpenAI-compatible server', () => {
  test('runs a multi-step tool conversation and ends on finish', async () => {
    const { result, files, calls, requests } = await run([
      { text: 'Let me look at the guide first.', toolCalls: [readGuide] },
      {
        toolCalls: [
          {
            name: 'write_file',
            arguments: { path: 'guide.md', content: '# Install\n\nRun the installer.\n' },
          },
        ],
      },
      { text: 'The heading is fixed.', toolCalls: [finishCall()] },
    ]);

    expect(result.status).toBe('finished');
    expect(result.summary).toBe('Fixed the heading.');
    expect(result.pullRequest).toEqual({ title: 'Fix heading typo', body: 'Corrects "Instal".' });
    expect(result.steps).toBe(3);
    expect(files.get('guide.md')).toBe('# Install\n\nRun the installer.\n');
    expect(calls).toEqual(['read_file guide.md', 'write_file guide.md']);
    expect(result.messages).toEqual([
      { role: 'assistant', text: 'Let me look at the guide first.' },
      {
        role: 'tool',
        tool: { name: 'read_file', input: { path: 'guide.md' }, output: '# Instal\n\nRun the installer.\n' },
      },
      {
        role: 'tool',
        tool: {
          name: 'write_file',
          input: { path: 'guide.md', content: '# Install\n\nRun the installer.\n' },
          output: 'Wrote 30 characters to guide.md.',
        },
      },
      { role: 'assistant', text: 'The heading is fixed.' },
      {
        role: 'tool',
        tool: { name: 'finish', input: finishCall().arguments, output: 'Turn finished.' },
      },
    ]);

    // Every request was well-formed, streamed, and asked for usage.
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.problems).toEqual([]);
      expect(request.body.stream).toBe(true);
      expect(request.body.stream_options).toEqual({ include_usage: true });
      expect(request.body.model).toBe('scripted-model');
    }
    const first = requests[0]?.body;
    expect(first?.messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
    expect(first?.messages.at(-1)).toEqual({ role: 'user', content: 'Fix the typo in the guide heading.' });
    expect(first?.tools?.map((t) => t.function.name).sort()).toEqual([
      'finish',
      'read_file',
      'update_plan',
      'write_file',
    ]);
    const finishSchema = first?.tools?.find((t) => t.function.name === 'finish')?.function.parameters;
    expect(finishSchema).toMatchObject({ type: 'object', required: ['summary'] });

    // The second request carries the first call and its result back to the model.
    const second = requests[1]?.body.messages ?? [];
    const toolMessage = second.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toBe('# Instal\n\nRun the installer.\n');
    const assistant = second.find((m) => m.role === 'assistant');
    expect(assistant?.tool_calls?.[0]?.function).toEqual({
      name: 'read_file',
      arguments: '{"path":"guide.md"}',
    });
  });

  test('counts input and output tokens over all steps', async () => {
    const { result } = await run([
      { toolCalls: [readGuide], usage: { promptTokens: 120, completionTokens: 15 } },
      { toolCalls: [finishCall()], usage: { promptTokens: 180, completionTokens: 40 } },
    ]);
    expect(result.status).toBe('finished');
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 55 });
  });

  test('a model that stops without finish ends the turn with its text as the summary', async () => {
    const { result } = await run([{ text: 'The guide explains how to run the installer.' }]);
    expect(result.status).toBe('finished');
    expect(result.summary).toBe('The guide explains how to run the installer.');
    expect(result.pullRequest).toBeNull();
  });

  test('an empty reply ends the turn with a note-like summary rather than an empty one', async () => {
    const { result } = await run([{ toolCalls: [readGuide], text: 'Reading.' }, { text: '' }]);
    expect(result.status).toBe('finished');
    expect(result.summary).toBe('The agent ended its turn without a summary.');
  });

  test('finish without a pull request title gives no pull request', async () => {
    const { result } = await run([
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Nothing to change.' } }] },
    ]);
    expect(result).toMatchObject({ status: 'finished', summary: 'Nothing to change.', pullRequest: null });
  });

  test('a finish call with bad input is refused and the model can try again', async () => {
    const { result, requests } = await run([
      { toolCalls: [{ name: 'finish', arguments: { summary: '' } }] },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.status).toBe('finished');
    expect(result.messages[0]).toMatchObject({
      role: 'tool',
      tool: { name: 'finish', output: expect.stringMatching(/^Error: .*summary/) },
    });
    const toolReply = requests[1]?.body.messages.find((m) => m.role === 'tool');
    expect(String(toolReply?.content)).toMatch(/summary/);
  });

  test('a tool that throws is reported to the model and the loop goes on', async () => {
    const { result, requests } = await run([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.md' } }] },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.status).toBe('finished');
    expect(result.messages[0]).toEqual({
      role: 'tool',
      tool: { name: 'read_file', input: { path: 'missing.md' }, output: 'Error: No file missing.md' },
    });
    expect(String(requests[1]?.body.messages.find((m) => m.role === 'tool')?.content)).toContain(
      'No file missing.md',
    );
  });

  test('malformed tool arguments from the model come back to it as an error', async () => {
    const { result, calls } = await run([
      { toolCalls: [{ name: 'read_file', arguments: '{"path": ' }] },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.status).toBe('finished');
    expect(calls).toEqual([]);
    expect(result.messages[0]).toMatchObject({
      role: 'tool',
      tool: { name: 'read_file', output: expect.stringMatching(/^Error: /) },
    });
  });

  test('parallel tool calls are recorded in the order the model made them', async () => {
    const { result } = await run([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'guide.md' } },
          { name: 'read_file', arguments: { path: 'nope.md' } },
        ],
      },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.messages.slice(0, 2).map((m) => (m.role === 'tool' ? m.tool.input : null))).toEqual([
      { path: 'guide.md' },
      { path: 'nope.md' },
    ]);
  });

  test('stored tool results are shortened, while the model sees them whole', async () => {
    const long = 'x'.repeat(500);
    const { result, requests } = await run([{ toolCalls: [readGuide] }, { toolCalls: [finishCall()] }], {
      files: new Map([['guide.md', long]]),
      loop: { maxRecordedOutputChars: 100 },
    });
    const output = result.messages[0]?.role === 'tool' ? result.messages[0].tool.output : '';
    expect(output.startsWith('x'.repeat(100))).toBe(true);
    expect(output).toContain('400 more characters not stored');
    expect(requests[1]?.body.messages.find((m) => m.role === 'tool')?.content).toBe(long);
  });

  test('refuses a tool set that defines finish itself', async () => {
    server = await startScriptedOpenAIServer([]);
    const model = createLanguageModel('openai-compatible:m', { openaiCompatibleBaseUrl: server.baseUrl });
    await expect(
      runAgentLoop({
        model,
        system: 's',
        history: [],
        prompt: 'p',
        tools: { ...toyTools(new Map()), finish: toyTools(new Map()).read_file as never },
        limits: LIMITS,
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(/finish/);
  });
});

describe('limits', () => {
  test('the step limit ends the turn cleanly with what was done', async () => {
    const { result, requests, calls } = await run(
      [{ text: 'Reading.', toolCalls: [readGuide] }, { toolCalls: [readGuide] }, { toolCalls: [readGuide] }],
      { loop: { limits: { ...LIMITS, maxSteps: 2 } } },
    );
    expect(result.status).toBe('limit');
    expect(result.limit).toBe('steps');
    expect(result.steps).toBe(2);
    expect(requests).toHaveLength(2);
    expect(calls).toEqual(['read_file guide.md', 'read_file guide.md']);
    expect(result.reason).toMatch(/step limit \(2 model calls\)/);
    expect(result.summary).toContain(result.reason);
    expect(result.summary).toContain('Reading.');
    expect(result.messages.at(-1)).toEqual({ role: 'note', text: result.reason });
    // Before its last call the model was told to wrap up.
    expect(requests[0]?.body.messages.at(-1)?.role).toBe('user');
    expect(requests[1]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(
        /^\[Docwright\] Only 1 model call remains in this turn\. Wrap up now.*validate.*finish/,
      ),
    });
    expect(result.messages).toContainEqual({
      role: 'note',
      text: expect.stringMatching(/^Asked the agent to wrap up/),
    });
  });

  test('the token limit ends the turn after the step that crosses it', async () => {
    const usage = { promptTokens: 500, completionTokens: 100 };
    const { result, requests } = await run(
      [
        { toolCalls: [readGuide], usage },
        { toolCalls: [readGuide], usage },
        { toolCalls: [readGuide], usage },
      ],
      { loop: { limits: { ...LIMITS, maxTokens: 1000 } } },
    );
    expect(result).toMatchObject({ status: 'limit', limit: 'tokens', steps: 2 });
    expect(result.usage).toEqual({ inputTokens: 1000, outputTokens: 200 });
    expect(requests).toHaveLength(2);
    expect(result.reason).toMatch(/token limit \(1000 tokens\)/);
  });

  test('the time limit interrupts a model call in flight', async () => {
    const { result, requests } = await run([{ toolCalls: [readGuide] }, { text: 'thinking', hang: true }], {
      loop: { limits: { ...LIMITS, maxDurationMs: 300 } },
    });
    expect(result).toMatchObject({ status: 'limit', limit: 'time', steps: 1 });
    expect(requests).toHaveLength(2);
    expect(result.messages[0]).toMatchObject({ role: 'tool', tool: { name: 'read_file' } });
    expect(result.reason).toMatch(/time limit/);
  });

  test('limits must be positive', async () => {
    await expect(run([], { loop: { limits: { ...LIMITS, maxSteps: 0 } } })).rejects.toThrow(
      /maxSteps must be a positive/,
    );
  });

  test('a finish in the step that reaches the step limit still counts as finished', async () => {
    const { result } = await run([{ toolCalls: [readGuide] }, { toolCalls: [finishCall()] }], {
      loop: { limits: { ...LIMITS, maxSteps: 2 } },
    });
    expect(result.status).toBe('finished');
  });
});

describe('provider errors', () => {
  test('a 429 with Retry-After is retried, then the turn succeeds', async () => {
    const { result, requests } = await run([
      { error: { status: 429, message: 'Rate limit reached', retryAfter: '0' } },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.status).toBe('finished');
    expect(requests).toHaveLength(2);
    expect(requests[1]?.body.messages).toEqual(requests[0]?.body.messages);
  });

  test('server errors are retried with backoff', async () => {
    const { result, requests } = await run([
      { error: { status: 500, message: 'boom' } },
      { error: { status: 503, message: 'overloaded' } },
      { toolCalls: [finishCall()] },
    ]);
    expect(result.status).toBe('finished');
    expect(requests).toHaveLength(3);
  });

  test('retries are bounded: a provider that keeps failing fails the turn with the reason', async () => {
    const busy = { error: { status: 429, message: 'Rate limit reached', retryAfter: '0' } };
    const { result, requests } = await run([busy, busy, busy, busy], {
      loop: { retry: { ...FAST_RETRY, maxRetries: 2 } },
    });
    expect(result.status).toBe('failed');
    expect(requests).toHaveLength(3);
    expect(result.reason).toMatch(/kept failing after 3 attempts \(HTTP 429: Rate limit reached\)/);
  });

  test('a Retry-After longer than allowed fails at once instead of waiting', async () => {
    const { result, requests } = await run([
      { error: { status: 429, message: 'slow down', retryAfter: '3600' } },
    ]);
    expect(result.status).toBe('failed');
    expect(requests).toHaveLength(1);
    expect(result.reason).toMatch(/asked to wait 3600 s/);
  });

  test('an authentication error fails at once with a reason that names the setting, not the key', async () => {
    const { result, requests } = await run([{ toolCalls: [finishCall()] }], {
      server: { apiKey: 'sk-right-key-123456' },
      apiKey: 'sk-wrong-key-987654',
    });
    expect(result.status).toBe('failed');
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-wrong-key-987654');
    expect(result.reason).toMatch(/refused the credentials \(HTTP 401\)/);
    expect(result.reason).toContain('DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY');
    expect(JSON.stringify(result)).not.toContain('sk-wrong-key');
  });

  test('the right key is sent and accepted', async () => {
    const { result, requests } = await run([{ toolCalls: [finishCall()] }], {
      server: { apiKey: 'sk-right-key-123456' },
      apiKey: 'sk-right-key-123456',
    });
    expect(result.status).toBe('finished');
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-right-key-123456');
  });

  test('an unknown model fails at once with a clear reason', async () => {
    const { result, requests } = await run([{ toolCalls: [finishCall()] }], {
      server: { models: ['qwen3-coder'] },
      modelId: 'qwen9-imaginary',
    });
    expect(result.status).toBe('failed');
    expect(requests).toHaveLength(1);
    expect(result.reason).toMatch(/does not know .*"qwen9-imaginary" \(HTTP 404/);
  });

  test('a bad request is not retried', async () => {
    const { result, requests } = await run([{ error: { status: 400, message: 'context length exceeded' } }]);
    expect(result.status).toBe('failed');
    expect(requests).toHaveLength(1);
    expect(result.reason).toMatch(/HTTP 400\): context length exceeded/);
  });

  test('an error after earlier steps keeps what was done', async () => {
    const { result } = await run([{ text: 'Reading.', toolCalls: [readGuide] }, { error: { status: 401 } }]);
    expect(result.status).toBe('failed');
    expect(result.steps).toBe(1);
    expect(result.messages.slice(0, 2)).toMatchObject([
      { role: 'assistant', text: 'Reading.' },
      { role: 'tool', tool: { name: 'read_file' } },
    ]);
    expect(result.messages.at(-1)).toEqual({ role: 'note', text: result.reason });
  });
});

describe('abort', () => {
  test('aborting stops a model call in flight', async () => {
    const controller = new AbortController();
    const { result, requests } = await run(
      [
        { toolCalls: [readGuide] },
        () => {
          controller.abort(new Error('Docwright worker is shutting down'));
          return { text: 'thinking', hang: true };
        },
      ],
      { loop: { signal: controller.signal } },
    );
    expect(result).toMatchObject({ status: 'failed', aborted: true, steps: 1 });
    expect(result.reason).toContain('Docwright worker is shutting down');
    expect(requests).toHaveLength(2);
  });

  test('aborting stops a wait before a retry', async () => {
    const controller = new AbortController();
    const { result } = await run(
      [
        () => {
          setTimeout(() => controller.abort(new Error('job archived')), 50);
          return { error: { status: 429, retryAfter: '100' } };
        },
      ],
      { loop: { signal: controller.signal } },
    );
    expect(result).toMatchObject({ status: 'failed', aborted: true });
  });

  test('an already aborted signal makes no model call', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, requests } = await run([{ toolCalls: [finishCall()] }], {
      loop: { signal: controller.signal },
    });
    expect(result).toMatchObject({ status: 'failed', aborted: true, steps: 0 });
    expect(requests).toHaveLength(0);
  });
});

describe('history', () => {
  test('earlier turns reach the model as a well-formed conversation before the new prompt', async () => {
    const history: ConversationMessage[] = [
      message(1, 'user', { text: 'Fix the typo in the guide heading.' }),
      message(1, 'assistant', { text: 'Let me look.' }),
      message(1, 'tool', { tool: { name: 'read_file', input: { path: 'guide.md' }, output: '# Instal' } }),
      message(1, 'tool', {
        tool: { name: 'write_file', input: { path: 'guide.md', content: '# Install' }, output: 'ok' },
      }),
      message(1, 'assistant', { text: 'Fixed.' }),
      message(1, 'tool', {
        tool: { name: 'finish', input: { summary: 'Fixed it.' }, output: 'Turn finished.' },
      }),
      message(2, 'user', { text: 'Also add a section on uninstalling.' }),
      message(2, 'note', { text: 'The turn stopped: the step limit was reached.' }),
    ];
    const { result, requests } = await run([{ toolCalls: [finishCall()] }], {
      loop: { history, prompt: 'Please finish the uninstall section.' },
    });
    expect(result.status).toBe('finished');
    const request = requests[0];
    expect(request?.problems).toEqual([]);
    const sent = request?.body.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'user',
      'assistant',
      'user',
    ]);
    expect(sent[1]?.content).toBe('Fix the typo in the guide heading.');
    expect(sent[2]?.content).toBe('Let me look.');
    expect(sent[2]?.tool_calls?.map((c) => c.function.name)).toEqual(['read_file', 'write_file']);
    expect(sent[3]?.content).toBe('# Instal');
    expect(sent[5]?.content).toBe('Fixed.');
    expect(sent[7]?.content).toBe('Also add a section on uninstalling.');
    expect(sent[8]?.content).toContain('step limit was reached');
    expect(sent[9]).toEqual({ role: 'user', content: 'Please finish the uninstall section.' });
  });
});

function message(
  turn: number,
  role: ConversationMessage['role'],
  fields: Partial<ConversationMessage>,
): ConversationMessage {
  return {
    id: `msg_${Math.random()}`,
    turn,
    role,
    text: null,
    tool: null,
    plan: null,
    createdAt: new Date(0).toISOString(),
    ...fields,
  };
}
