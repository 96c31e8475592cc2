import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDocumentationAgent } from '../../../src/app/create-agent.ts';
import { createWorker } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import type { Worker } from '../../../src/domain/runner/worker.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { git } from '../../helpers/git-repos.ts';
import {
  type ScriptedOpenAIServer,
  type ScriptStep,
  startScriptedOpenAIServer,
} from '../../helpers/scripted-openai-server.ts';
import { type ParsedEvent, SseReader } from '../../helpers/sse.ts';
import { testBackend } from '../../helpers/storage.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../../examples/docs-site', import.meta.url));
const API_KEY = 'sk-test-secret-key-123';
const PAGE =
  '---\ntitle: Rate limits\ndescription: How many requests you can make.\n---\n\nYou can make 100 requests per minute.\n';

/** The model's side of a turn that adds a page and links it. */
const ADD_PAGE: ScriptStep[] = [
  {
    text: 'Let me look at the navigation first.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'docs.json' } }],
  },
  { toolCalls: [{ name: 'write_file', arguments: { path: 'guides/rate-limits.mdx', content: PAGE } }] },
  {
    toolCalls: [
      {
        name: 'edit_file',
        arguments: {
          path: 'docs.json',
          old_string: '"guides/webhooks"]',
          new_string: '"guides/webhooks", "guides/rate-limits"]',
        },
      },
    ],
  },
  { toolCalls: [{ name: 'validate', arguments: {} }] },
  {
    toolCalls: [
      {
        name: 'finish',
        arguments: {
          summary: 'Added the rate limits page.',
          pull_request_title: 'Add a rate limits page',
        },
      },
    ],
  },
];

describe(`a job's event stream, documentation agent end to end, on ${testBackend}`, () => {
  let t: TestApp;
  let model: ScriptedOpenAIServer;
  let worker: Worker | null = null;
  const dirs: string[] = [];

  afterEach(async () => {
    await worker?.stop();
    worker = null;
    await t?.close();
    await model?.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A local copy of the example site, the scripted model, and the agent built as the server builds it. */
  async function start(script: ScriptStep[] = ADD_PAGE) {
    model = await startScriptedOpenAIServer(script, { apiKey: API_KEY });
    const repo = mkdtempSync(path.join(tmpdir(), 'docwright-events-repo-'));
    const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-events-data-'));
    dirs.push(repo, dataDir);
    cpSync(EXAMPLE_SITE, repo, { recursive: true });
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'Initial docs');
    const settings = {
      DOCWRIGHT_MODEL: 'openai-compatible:test-model',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: model.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: API_KEY,
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
      DOCWRIGHT_PUBLIC_URL: 'http://docwright.test',
    };
    const agent = createDocumentationAgent(
      loadConfig({ ...settings, DOCWRIGHT_DATA_DIR: dataDir }),
      pino({ level: 'silent' }),
      { secretBox: null },
    );
    t = await startTestApp({ env: settings, agent });
    const project = await t.services.projects.create({ name: 'Local docs', repository: repo });
    const { key } = await t.services.keys.create(project.id, 'events');
    return { projectId: project.id, key };
  }

  it('streams status, steps as they happen, messages, turn usage and the pull request, then ends', async () => {
    const { projectId, key } = await start();
    const created = (await (
      await t.request('POST', `/v2/agent/${projectId}/job`, {
        key,
        body: { prompt: 'Add a page about rate limits' },
      })
    ).json()) as JobView;
    const url = `/v2/agent/${projectId}/job/${created.id}/events`;
    const response = await t.request('GET', url, { key, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    // The route writes its own head (hijacked): the request id is on it as on every answer.
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
    const stream = new SseReader(response);
    // The stream is open before any work starts: everything after this comes live.
    await stream.readUntil((frames) => frames.some((f) => f.kind === 'event' && f.event === 'message'));
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await stream.readToEnd();

    const events = stream.events;
    expect(stream.frames[0]).toEqual({ kind: 'retry', ms: 2000 });
    // Event 0 is the job as it was when the stream opened; then every event, in id order.
    expect(events[0]).toMatchObject({ id: 0, event: 'status', data: { id: created.id, status: 'active' } });
    const ids = events.slice(1).map((e) => e.id);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);

    const summary = events.slice(1).map(summarize);
    expect(summary).toEqual([
      'status active',
      'turn queued 1',
      'message user Add a page about rate limits',
      'turn started 1',
      'status active',
      'step assistant Let me look at the navigation first.',
      'step tool read_file',
      'step tool write_file',
      'step tool edit_file',
      'step tool validate',
      'step tool finish',
      'step note',
      'message assistant Let me look at the navigation first.',
      'message tool read_file',
      'message tool write_file',
      'message tool edit_file',
      'message tool validate',
      'message tool finish',
      'message note',
      'turn succeeded 1',
      'pull_request',
      'status completed',
    ]);
    const byType = (type: string) => events.filter((e) => e.event === type);
    expect(byType('pull_request')[0]?.data).toEqual({ prLink: `http://docwright.test/review/${created.id}` });
    const finished = byType('turn').at(-1)?.data as { usage: { inputTokens: number; outputTokens: number } };
    expect(finished.usage.inputTokens).toBeGreaterThan(0);
    expect(finished.usage.outputTokens).toBeGreaterThan(0);
    expect(
      byType('step').find((e) => (e.data as { tool?: { name: string } }).tool?.name === 'write_file')?.data,
    ).toMatchObject({
      turn: 1,
      role: 'tool',
      tool: { input: { path: 'guides/rate-limits.mdx', content: PAGE } },
    });

    // The messages events are the stored conversation, as GET …/messages returns it.
    const conversation = (await (
      await t.request('GET', `/v2/agent/${projectId}/job/${created.id}/messages`, { key })
    ).json()) as {
      messages: unknown[];
    };
    expect(byType('message').map((e) => e.data)).toEqual(conversation.messages);
    // The final status is the job as polling shows it; polling works as before.
    const polled = (await (
      await t.request('GET', `/v2/agent/${projectId}/job/${created.id}`, { key })
    ).json()) as JobView;
    expect(events.at(-1)?.data).toEqual(polled);

    // Every event matches the document the server publishes.
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as object;
    const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema(document, 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/JobEvent');
    for (const event of events) expect(validate?.(event), JSON.stringify(validate?.errors)).toBe(true);

    // No secret reaches the stream.
    expect(JSON.stringify(stream.frames)).not.toContain(API_KEY);
  });

  it("sends each update of the agent's plan as a plan event, and stores the turn's last in the conversation", async () => {
    const plan = (read: string, write: string, link: string) => ({
      name: 'update_plan',
      arguments: {
        items: [
          { title: 'Read the navigation', status: read },
          { title: 'Write the rate limits page', status: write },
          { title: 'Link it in docs.json', status: link },
        ],
      },
    });
    const [read, write, link, , finish] = ADD_PAGE as [
      ScriptStep,
      ScriptStep,
      ScriptStep,
      ScriptStep,
      ScriptStep,
    ];
    const { projectId, key } = await start([
      { text: 'A plan first.', toolCalls: [plan('in_progress', 'pending', 'pending')] },
      read,
      write,
      link,
      { toolCalls: [plan('done', 'done', 'done')] },
      finish,
    ]);
    const created = (await (
      await t.request('POST', `/v2/agent/${projectId}/job`, {
        key,
        body: { prompt: 'Add a page about rate limits' },
      })
    ).json()) as JobView;
    const url = `/v2/agent/${projectId}/job/${created.id}/events`;
    const live = new SseReader(
      await t.request('GET', url, { key, headers: { accept: 'text/event-stream' } }),
    );
    await live.readUntil((frames) => frames.some((f) => f.kind === 'event' && f.event === 'message'));
    worker = createWorker(t.services, pino({ level: 'silent' }));
    worker.start();
    await live.readToEnd();

    const statuses = (items: { status: string }[]) => items.map((item) => item.status).join(',');
    const planEvents = live.events.filter((e) => e.event === 'plan');
    expect(planEvents.map((e) => e.data)).toEqual([
      {
        turn: 1,
        items: [
          { title: 'Read the navigation', status: 'in_progress' },
          { title: 'Write the rate limits page', status: 'pending' },
          { title: 'Link it in docs.json', status: 'pending' },
        ],
        createdAt: expect.any(String),
      },
      {
        turn: 1,
        items: [
          { title: 'Read the navigation', status: 'done' },
          { title: 'Write the rate limits page', status: 'done' },
          { title: 'Link it in docs.json', status: 'done' },
        ],
        createdAt: expect.any(String),
      },
    ]);
    // In order among the steps, as they happened; a plan update is not also a tool step.
    expect(
      live.events
        .filter((e) => e.event === 'plan' || e.event === 'step')
        .map((e) =>
          e.event === 'plan' ? `plan ${statuses((e.data as { items: [] }).items)}` : summarize(e),
        ),
    ).toEqual([
      'step assistant A plan first.',
      'plan in_progress,pending,pending',
      'step assistant Let me look at the navigation first.',
      'step tool read_file',
      'step tool write_file',
      'step tool edit_file',
      'plan done,done,done',
      'step tool finish',
      'step note',
    ]);

    // The conversation keeps the turn's last plan, where it was set, as a plan message.
    const conversation = (await (
      await t.request('GET', `/v2/agent/${projectId}/job/${created.id}/messages`, { key })
    ).json()) as { messages: { role: string; tool: { name: string } | null; plan: { items: [] } | null }[] };
    expect(conversation.messages.map((m) => m.tool?.name ?? m.role)).toEqual([
      'user',
      'assistant',
      'assistant',
      'read_file',
      'write_file',
      'edit_file',
      'plan',
      'finish',
      'note',
    ]);
    const lastPlan = planEvents.at(-1)?.data as { items: unknown } | undefined;
    expect(conversation.messages.find((m) => m.role === 'plan')?.plan).toEqual({ items: lastPlan?.items });
    expect(conversation.messages.filter((m) => m.role !== 'plan').every((m) => m.plan === null)).toBe(true);
    expect(live.events.filter((e) => e.event === 'message').map((e) => e.data)).toEqual(
      conversation.messages,
    );

    // A client that comes late gets both updates from the start of the stream.
    const late = new SseReader(
      await t.request('GET', url, { key, headers: { accept: 'text/event-stream' } }),
    );
    await late.readToEnd();
    expect(late.events.filter((e) => e.event === 'plan')).toEqual(planEvents);

    // The events and the conversation match the document the server publishes.
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as object;
    const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema(document, 'openapi.json');
    const validateEvent = ajv.getSchema('openapi.json#/components/schemas/JobEvent');
    for (const event of live.events) {
      expect(validateEvent?.(event), JSON.stringify(validateEvent?.errors)).toBe(true);
    }
    const validateConversation = ajv.getSchema('openapi.json#/components/schemas/Conversation');
    expect(validateConversation?.(conversation), JSON.stringify(validateConversation?.errors)).toBe(true);
  });
});

function summarize(event: ParsedEvent): string {
  const data = event.data as Record<string, unknown>;
  switch (event.event) {
    case 'status':
      return `status ${data.status}`;
    case 'turn':
      return `turn ${data.change} ${data.turn}`;
    case 'message':
    case 'step': {
      const tool = data.tool as { name: string } | null;
      if (tool) return `${event.event} tool ${tool.name}`;
      return data.role === 'note' ? `${event.event} note` : `${event.event} ${data.role} ${data.text}`;
    }
    default:
      return event.event;
  }
}
