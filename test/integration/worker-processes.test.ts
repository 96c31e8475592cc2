import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Project } from '../../src/domain/projects/project.ts';
import { type ChildHandle, startWorkerProcess } from '../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

interface Execution {
  job: string;
  seq: number;
  attempt: number;
  worker: string;
  at: number;
}

describe(`worker processes on ${testBackend}`, () => {
  let database: TestDatabase;
  let services: Services;
  let project: Project;
  let log: string;
  const children: ChildHandle[] = [];

  beforeEach(async () => {
    database = createTestDatabase();
    log = path.join(database.dir, 'executions.jsonl');
    services = await openServices(loadConfig(database.env), pino({ level: 'silent' }), {
      storage: database.open(),
    });
    const info = await services.projects.create({ name: 'Docs', repository: 'https://example.com/docs.git' });
    project = await services.projects.get(info.id);
  });

  afterEach(async () => {
    for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await services.close();
    await database.drop();
  });

  const spawnWorker = async (name: string, env: Record<string, string> = {}) => {
    const handle = await startWorkerProcess({
      ...database.env,
      DOCWRIGHT_LOG_LEVEL: 'warn',
      DOCWRIGHT_POLL_INTERVAL_MS: '30',
      DOCWRIGHT_LEASE_SECONDS: '1',
      TEST_EXECUTION_LOG: log,
      TEST_WORKER_NAME: name,
      ...env,
    });
    children.push(handle);
    return handle;
  };
  const executions = (): Execution[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Execution)
      : [];
  const statuses = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => (await services.jobs.get(project.id, id)).status));

  it('two workers share the queue and run every turn exactly once, in order per job', async () => {
    // Both workers are polling before the first job exists, and each first turn takes long
    // enough (24 jobs, 3 at a time: at least 8 × 100 ms for one worker alone) that the other
    // worker's 30 ms poll always finds queued work. Queuing the jobs first let a worker that
    // became ready early, on a loaded machine, run all of them before the other one started.
    await Promise.all([
      spawnWorker('a', { DOCWRIGHT_WORKER_CONCURRENCY: '3' }),
      spawnWorker('b', { DOCWRIGHT_WORKER_CONCURRENCY: '3' }),
    ]);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const job = await services.jobs.create(project, `sleep:100 job ${i} first`);
      await services.jobs.message(project.id, job.id, `sleep:5 job ${i} second`);
      await services.jobs.message(project.id, job.id, `job ${i} third`);
      ids.push(job.id);
    }
    await expect
      .poll(async () => (await statuses(ids)).every((s) => s === 'completed'), {
        timeout: 60_000,
        interval: 100,
      })
      .toBe(true);

    const runs = executions();
    expect(runs).toHaveLength(ids.length * 3);
    const keys = runs.map((r) => `${r.job}#${r.seq}`);
    expect(new Set(keys).size).toBe(keys.length); // nothing ran twice
    for (const id of ids) {
      const ofJob = runs.filter((r) => r.job === id).sort((x, y) => x.at - y.at);
      expect(ofJob.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(ofJob.every((r) => r.attempt === 1)).toBe(true);
    }
    // Both processes took work.
    expect(new Set(runs.map((r) => r.worker))).toEqual(new Set(['a', 'b']));
  });

  it('recovers a turn from a worker killed mid-turn: the next worker runs it again once its lease expires', async () => {
    const first = await spawnWorker('doomed');
    const job = await services.jobs.create(project, 'hang-once rewrite the quickstart');
    await expect.poll(() => executions().length, { timeout: 10_000 }).toBe(1);
    first.child.kill('SIGKILL');
    await first.exited;
    expect((await services.jobs.get(project.id, job.id)).status).toBe('active');

    await spawnWorker('rescuer');
    await expect
      .poll(async () => (await services.jobs.get(project.id, job.id)).status, { timeout: 15_000 })
      .toBe('completed');
    expect(executions().map((r) => [r.worker, r.attempt])).toEqual([
      ['doomed', 1],
      ['rescuer', 2],
    ]);
    const { turns } = await services.jobs.conversation(project.id, job.id);
    expect(turns[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('fails the job with the reason when workers keep dying on the same turn', async () => {
    const job = await services.jobs.create(project, 'hang forever');
    for (const name of ['w1', 'w2']) {
      const worker = await spawnWorker(name, { DOCWRIGHT_MAX_ATTEMPTS: '2' });
      await expect
        .poll(() => executions().filter((r) => r.worker === name).length, { timeout: 10_000 })
        .toBe(1);
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
    await spawnWorker('w3', { DOCWRIGHT_MAX_ATTEMPTS: '2' });
    await expect
      .poll(async () => (await services.jobs.get(project.id, job.id)).status, { timeout: 15_000 })
      .toBe('failed');
    expect((await services.jobs.get(project.id, job.id)).failureReason).toMatch(
      /attempted 2 times without finishing/,
    );
    expect(executions()).toHaveLength(2);
  });

  it('on SIGTERM finishes the running turn within the grace period and exits cleanly', async () => {
    const worker = await spawnWorker('graceful', { DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: '10' });
    const job = await services.jobs.create(project, 'sleep:700 polish the intro');
    await expect.poll(() => executions().length, { timeout: 10_000 }).toBe(1);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect((await services.jobs.get(project.id, job.id)).status).toBe('completed');
  });

  it('on SIGTERM past the grace period releases the turn without spending an attempt', async () => {
    const worker = await spawnWorker('impatient', { DOCWRIGHT_SHUTDOWN_GRACE_SECONDS: '0.3' });
    const job = await services.jobs.create(project, 'hang until released');
    await expect.poll(() => executions().length, { timeout: 10_000 }).toBe(1);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    const { turns } = await services.jobs.conversation(project.id, job.id);
    expect(turns[0]).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await services.jobs.get(project.id, job.id)).status).toBe('active');
  });
});
