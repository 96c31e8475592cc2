import { afterEach, describe, expect, test } from 'vitest';
import { checkPlanInput, createPlanTool } from '../../../src/domain/agent/llm/plan-tool.ts';
import { runAgentLoop } from '../../../src/domain/agent/llm/run-agent-loop.ts';
import type { AgentMessage, ConversationMessage } from '../../../src/domain/jobs/conversation.ts';
import { createLanguageModel } from '../../../src/integrations/models/create-model.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { toyTools } from './toy-tools.ts';

const step = (title: string, status: string) => ({ title, status });

describe('update_plan: what it accepts', () => {
  test('a whole plan, its titles put on one line and trimmed', () => {
    expect(
      checkPlanInput({
        items: [
          step('  Read the navigation ', 'done'),
          step('Write the\n  rate limits page', 'in_progress'),
          step('Link it', 'pending'),
        ],
      }),
    ).toEqual({
      ok: true,
      plan: {
        items: [
          { title: 'Read the navigation', status: 'done' },
          { title: 'Write the rate limits page', status: 'in_progress' },
          { title: 'Link it', status: 'pending' },
        ],
      },
    });
    const fifty = Array.from({ length: 50 }, (_, i) => step(`Step ${i}`, 'pending'));
    expect(checkPlanInput({ items: fifty }).ok).toBe(true);
    expect(checkPlanInput({ items: [step('x'.repeat(200), 'done')] }).ok).toBe(true);
    // No step under way is a plan too (not started, or all done).
    expect(checkPlanInput({ items: [step('a', 'done'), step('b', 'done')] }).ok).toBe(true);
  });

  test.each([
    ['not an object', 'items', /^update_plan takes an object/],
    ['a list', [step('a', 'done')], /^update_plan takes an object/],
    ['no items', {}, /^items must be a list of 1 to 50 steps$/],
    ['items not a list', { items: 'read, write' }, /^items must be a list/],
    ['no step', { items: [] }, /^items is empty: give at least one step$/],
    [
      '51 steps',
      { items: Array.from({ length: 51 }, () => step('a', 'pending')) },
      /^items has 51 steps; a plan has at most 50/,
    ],
    [
      'an unknown argument',
      { items: [step('a', 'done')], explanation: 'why' },
      /^unknown argument "explanation"/,
    ],
    ['a step not an object', { items: [step('a', 'done'), 'b'] }, /^items\[1\] must be an object/],
    [
      'an unknown field in a step',
      { items: [{ title: 'a', status: 'done', note: 'x' }] },
      /^items\[0\] has an unknown field "note": a step has only title and status$/,
    ],
    ['no title', { items: [{ status: 'done' }] }, /^items\[0\]\.title must be a string$/],
    [
      'a title not a string',
      { items: [step('a', 'done'), { title: 5, status: 'done' }] },
      /^items\[1\]\.title must/,
    ],
    ['a blank title', { items: [step(' \n ', 'pending')] }, /^items\[0\]\.title is empty$/],
    [
      'a title too long',
      { items: [step('x'.repeat(201), 'pending')] },
      /^items\[0\]\.title has 201 characters; at most 200$/,
    ],
    [
      'an unknown status',
      { items: [step('a', 'doing')] },
      /^items\[0\]\.status must be "pending", "in_progress" or "done" \(got "doing"\)$/,
    ],
    ['no status', { items: [{ title: 'a' }] }, /^items\[0\]\.status must be .* \(got undefined\)$/],
    [
      'two steps in progress',
      { items: [step('a', 'in_progress'), step('b', 'pending'), step('c', 'in_progress')] },
      /^items\[0\] and items\[2\] are both in_progress: at most one step is in progress at a time$/,
    ],
  ])('refuses %s, saying what is wrong', (_, input, problem) => {
    const checked = checkPlanInput(input);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? null : checked.problem).toMatch(problem);
  });

  test('the tool answers a bad call with an Error: result, and a good one with the progress', async () => {
    const execute = createPlanTool().execute;
    if (!execute) throw new Error('update_plan has no execute');
    const options = { toolCallId: 'call_1', messages: [], context: {} };
    expect(await execute({ items: [step('a', 'in_progress'), step('b', 'in_progress')] }, options)).toMatch(
      /^Error: items\[0\] and items\[1\] are both in_progress/,
    );
    expect(await execute(null, options)).toMatch(/^Error: update_plan takes an object/);
    expect(await execute({ items: [step('Read', 'done'), step('Write', 'in_progress')] }, options)).toBe(
      'Plan updated: 1 of 2 done; in progress: Write.',
    );
  });
});

describe('update_plan in the agent loop', () => {
  let server: ScriptedOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function run(script: ScriptStep[], history: ConversationMessage[] = []) {
    server = await startScriptedOpenAIServer(script);
    const seen: AgentMessage[] = [];
    const model = createLanguageModel('openai-compatible:scripted-model', {
      openaiCompatibleBaseUrl: server.baseUrl,
      openaiCompatibleApiKey: null,
    });
    const result = await runAgentLoop({
      model,
      system: 'You are a test agent.',
      history,
      prompt: 'Fix the guide.',
      tools: toyTools(new Map([['guide.md', '# Instal\n']])),
      limits: { maxSteps: 20, maxTokens: 1_000_000, maxDurationMs: 20_000 },
      signal: new AbortController().signal,
      retry: { initialDelayMs: 1, maxDelayMs: 5 },
      onMessage: (message) => seen.push(message),
    });
    return { result, seen, requests: server.requests };
  }

  const plan = (...items: [string, string][]) => ({
    name: 'update_plan',
    arguments: { items: items.map(([title, status]) => step(title, status)) },
  });
  const finish = { name: 'finish', arguments: { summary: 'Done.' } };
  const read = { name: 'read_file', arguments: { path: 'guide.md' } };

  test('tells every update as it happens, keeps only the last plan, and hands a bad call back to the model', async () => {
    const { result, seen, requests } = await run([
      { toolCalls: [plan(['Read the guide', 'in_progress'], ['Fix the heading', 'pending'])] },
      { toolCalls: [read] },
      // Two steps in progress: refused, the model is told why, and the turn goes on.
      { toolCalls: [plan(['Read the guide', 'in_progress'], ['Fix the heading', 'in_progress'])] },
      { toolCalls: [plan(['Read the guide', 'done'], ['Fix the heading', 'in_progress'])] },
      { toolCalls: [plan(['Read the guide', 'done'], ['Fix the heading', 'done']), finish] },
    ]);
    expect(result.status).toBe('finished');
    expect(requests.every((r) => r.problems.length === 0)).toBe(true);

    const refusal = requests[3]?.body.messages.at(-1);
    expect(refusal?.role).toBe('tool');
    expect(String(refusal?.content)).toMatch(/^Error: items\[0\] and items\[1\] are both in_progress/);
    expect(String(requests[1]?.body.messages.at(-1)?.content)).toBe(
      'Plan updated: 0 of 2 done; in progress: Read the guide.',
    );

    const plans = (messages: AgentMessage[]) =>
      messages.flatMap((m) => (m.role === 'plan' ? [m.plan.items.map((i) => i.status).join(',')] : []));
    // Live: every accepted update.
    expect(plans(seen)).toEqual(['in_progress,pending', 'done,in_progress', 'done,done']);
    // Stored: the turn's last plan only, where it was set (before finish), and the refused call as a tool call.
    expect(plans(result.messages)).toEqual(['done,done']);
    expect(result.messages.map((m) => (m.role === 'tool' ? m.tool.name : m.role))).toEqual([
      'read_file',
      'update_plan',
      'plan',
      'finish',
    ]);
    const refused = result.messages[1];
    expect(refused?.role === 'tool' && refused.tool.output).toMatch(/^Error: items\[0\] and items\[1\]/);
  });

  test("an earlier turn's plan reaches the model as the update_plan call that set it", async () => {
    const at = new Date(0).toISOString();
    const base = { text: null, tool: null, plan: null, createdAt: at };
    const history: ConversationMessage[] = [
      { ...base, id: 'msg_1', turn: 1, role: 'user', text: 'Add a page.' },
      {
        ...base,
        id: 'msg_2',
        turn: 1,
        role: 'plan',
        plan: { items: [{ title: 'Write the page', status: 'done' }] },
      },
      { ...base, id: 'msg_3', turn: 1, role: 'assistant', text: 'Added.' },
    ];
    const { requests } = await run([{ toolCalls: [finish] }], history);
    const sent = requests[0]?.body.messages ?? [];
    expect(requests[0]?.problems).toEqual([]);
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent[2]?.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['update_plan', { items: [{ title: 'Write the page', status: 'done' }] }],
    ]);
    expect(sent[3]?.content).toBe('Plan updated: 1 of 1 done.');
  });

  test('a tool set may not bring its own update_plan', async () => {
    server = await startScriptedOpenAIServer([]);
    const model = createLanguageModel('openai-compatible:scripted-model', {
      openaiCompatibleBaseUrl: server.baseUrl,
      openaiCompatibleApiKey: null,
    });
    await expect(
      runAgentLoop({
        model,
        system: '',
        history: [],
        prompt: 'x',
        tools: { update_plan: createPlanTool() },
        limits: { maxSteps: 1, maxTokens: 1, maxDurationMs: 1000 },
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow('The tool set must not define "update_plan": the loop adds it.');
  });
});
