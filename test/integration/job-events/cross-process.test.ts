import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobView } from '../../../src/domain/jobs/job-view.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type ChildHandle, startWorkerProcess } from '../../helpers/processes.ts';
import { SseReader } from '../../helpers/sse.ts';
import { testBackend } from '../../helpers/storage.ts';

describe(`an API process streams what a worker in another process does, on ${testBackend}`, () => {
  let t: TestApp;
  let child: ChildHandle | null = null;

  afterEach(async () => {
    if (child?.child.exitCode === null) {
      child.child.kill('SIGKILL');
      await child.exited;
    }
    child = null;
    await t?.close();
  });

  it('delivers the worker’s steps while its turn runs, then the outcome, and ends', async () => {
    // This process serves the API only; the worker is a child process on the same database.
    t = await startTestApp();
    const log = path.join(t.database.dir, 'executions.jsonl');
    const created = (await (
      await t.request('POST', `/v2/agent/${t.project.id}/job`, {
        body: { prompt: 'sleep:3000 write a page' },
      })
    ).json()) as JobView;
    const stream = new SseReader(
      await t.request('GET', `/v2/agent/${t.project.id}/job/${created.id}/events`),
    );
    await stream.readUntil(() => stream.events.some((e) => e.event === 'message'));

    child = await startWorkerProcess({
      ...t.database.env,
      DOCWRIGHT_LOG_LEVEL: 'warn',
      DOCWRIGHT_POLL_INTERVAL_MS: '30',
      TEST_EXECUTION_LOG: log,
      TEST_WORKER_NAME: 'remote',
    });
    // The agent's first step is written as its turn starts; it must arrive while the turn still runs.
    await stream.readUntil(() => stream.events.some((e) => e.event === 'step'), 10_000);
    const stepArrived = Date.now();
    await stream.readToEnd(10_000);
    const ended = Date.now();

    const started = existsSync(log)
      ? (JSON.parse(readFileSync(log, 'utf8').trim().split('\n')[0] as string) as {
          at: number;
          worker: string;
        })
      : null;
    expect(started?.worker).toBe('remote');
    // The SQLite poll (250 ms) plus slack for a busy machine, and well under PostgreSQL's 5 s safety poll:
    // LISTEN/NOTIFY woke it. It came while the turn still ran (3 s), not with its end.
    expect(stepArrived - (started?.at as number)).toBeLessThan(2500);
    expect(ended - stepArrived).toBeGreaterThan(500);

    expect(
      stream.events.slice(4).map((e) => {
        const data = e.data as Record<string, unknown>;
        if (e.event === 'status') return `status ${data.status}`;
        if (e.event === 'turn') return `turn ${data.change}`;
        if (e.event === 'step' || e.event === 'message') return `${e.event} ${data.role}`;
        return e.event;
      }),
    ).toEqual([
      'turn started',
      'status active',
      'step assistant',
      'step tool',
      'message assistant',
      'message tool',
      'turn succeeded',
      'status completed',
    ]);
    expect(t.services.jobEventFeed.waiting).toBe(0);
  });
});
