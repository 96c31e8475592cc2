import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openServices, type Services } from '../../../src/app/services.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { type ChildHandle, startWorkerProcess } from '../../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

/**
 * Schedules on an injected clock, with two schedulers over two connections to the same
 * database (as two worker processes have): each slot runs once, a slot missed while both
 * were down runs once on start (only the latest), never a slot from before the schedule.
 */
describe(`automation schedules (${testBackend})`, () => {
  let t: TestApp;
  let second: Services;
  let now = new Date('2026-03-02T10:30:00.000Z');
  const clock = () => new Date(now);

  beforeEach(async () => {
    now = new Date('2026-03-02T10:30:00.000Z');
    t = await startTestApp({ clock });
    second = await openServices(
      loadConfig({ ...t.database.env, DOCWRIGHT_LOG_LEVEL: 'silent' }),
      pino({ level: 'silent' }),
      { storage: t.database.open(), clock },
    );
  });
  afterEach(async () => {
    await second?.close();
    await t?.close();
  });

  const schedulers = () => [t.services.automationScheduler, second.automationScheduler];
  /**
   * Both "processes" look for due slots, at the same time on PostgreSQL; returns how many runs
   * each started. On SQLite one after the other: better-sqlite3 is synchronous, so a second
   * connection of the same process waiting for the write lock would block the first one's
   * transaction (separate processes do not; see the worker-processes test below).
   */
  const passBoth = async () => {
    if (testBackend === 'postgres') return Promise.all(schedulers().map((s) => s.runDue()));
    const counts: number[] = [];
    for (const scheduler of schedulers()) counts.push(await scheduler.runDue());
    return counts;
  };
  const schedule = async (cron: string, timezone = 'UTC') =>
    t.services.automations.create(t.project.id, {
      name: 'Links',
      trigger: { kind: 'schedule', cron, timezone },
      instructions: 'Find broken links, outdated versions and pages no navigation reaches',
    });
  const slots = async (automationId: string) =>
    (
      await t.services.storage.db
        .selectFrom('automation_slots')
        .select('slot_at')
        .where('automation_id', '=', automationId)
        .orderBy('slot_at')
        .execute()
    ).map((r) => r.slot_at);
  const runs = async (automationId: string) =>
    (await t.services.automations.runs(t.project.id, automationId, { limit: 100 })).runs;

  it('runs each slot once across two schedulers, and only the latest missed slot after downtime', async () => {
    const { id } = await schedule('0 * * * *');
    // Created at 10:30: the 10:00 slot is older than the schedule and never runs.
    expect(await passBoth()).toEqual([0, 0]);
    now = new Date('2026-03-02T10:59:59.000Z');
    expect(await passBoth()).toEqual([0, 0]);
    now = new Date('2026-03-02T11:00:00.000Z');
    const started = await passBoth();
    expect(started.reduce((a, b) => a + b)).toBe(1);
    expect(await passBoth()).toEqual([0, 0]);
    // Down from 11:00 to 15:20: the 12:00 to 15:00 slots were missed; 15:00 alone runs.
    now = new Date('2026-03-02T15:20:00.000Z');
    expect((await passBoth()).reduce((a, b) => a + b)).toBe(1);
    expect(await passBoth()).toEqual([0, 0]);
    expect(await slots(id)).toEqual(['2026-03-02T11:00:00.000Z', '2026-03-02T15:00:00.000Z']);
    const listed = await runs(id);
    expect(listed.map((r) => [r.trigger, r.status])).toEqual([
      ['schedule', 'queued'],
      ['schedule', 'queued'],
    ]);
    // The second run followed up the first run's job (still active: no worker runs here).
    expect(listed[0]?.jobId).toBe(listed[1]?.jobId);
    const { turns } = await t.services.jobs.conversation(t.project.id, listed[0]?.jobId as string);
    expect(turns.map((turn) => turn.prompt.split('\n')[0])).toEqual([
      'Find broken links, outdated versions and pages no navigation reaches',
      'Find broken links, outdated versions and pages no navigation reaches',
    ]);
    expect(turns[1]?.prompt).toContain('Scheduled run for 2026-03-02T15:00:00.000Z');
  });

  it('reads the cron expression in its time zone, across a change to summer time', async () => {
    now = new Date('2026-03-02T07:00:00.000Z');
    const { id } = await schedule('0 9 * * *', 'Europe/Paris');
    now = new Date('2026-03-02T07:59:00.000Z');
    expect(await passBoth()).toEqual([0, 0]);
    now = new Date('2026-03-02T08:00:00.000Z'); // 09:00 in Paris (UTC+1)
    expect((await passBoth()).reduce((a, b) => a + b)).toBe(1);
    now = new Date('2026-03-30T07:00:30.000Z'); // 09:00 in Paris (UTC+2, after 29 March)
    expect((await passBoth()).reduce((a, b) => a + b)).toBe(1);
    expect(await slots(id)).toEqual(['2026-03-02T08:00:00.000Z', '2026-03-30T07:00:00.000Z']);
  });

  it('a disabled schedule runs nothing; re-enabled, it does not catch up the slots it missed', async () => {
    const { id } = await schedule('*/10 * * * *');
    await t.services.automations.update(t.project.id, id, { enabled: false });
    now = new Date('2026-03-02T10:40:00.000Z');
    expect(await passBoth()).toEqual([0, 0]);
    now = new Date('2026-03-02T10:45:00.000Z');
    await t.services.automations.update(t.project.id, id, { enabled: true });
    expect(await passBoth()).toEqual([0, 0]);
    now = new Date('2026-03-02T10:50:00.000Z');
    expect((await passBoth()).reduce((a, b) => a + b)).toBe(1);
    expect(await slots(id)).toEqual(['2026-03-02T10:50:00.000Z']);
  });
});

describe(`automation schedules in two worker processes (${testBackend})`, () => {
  let database: TestDatabase;
  let services: Services;
  const children: ChildHandle[] = [];

  beforeEach(async () => {
    database = createTestDatabase();
    services = await openServices(loadConfig(database.env), pino({ level: 'silent' }), {
      storage: database.open(),
    });
  });
  afterEach(async () => {
    for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await services.close();
    await database.drop();
  });

  it('each slot of an every-second schedule starts one run, whichever process claims it', async () => {
    const project = await services.projects.create({ name: 'Docs', repository: 'https://example.com/d.git' });
    const env = {
      ...database.env,
      DOCWRIGHT_LOG_LEVEL: 'info',
      DOCWRIGHT_POLL_INTERVAL_MS: '40',
      DOCWRIGHT_LEASE_SECONDS: '2',
    };
    children.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
    const { id } = await services.automations.create(project.id, {
      name: 'Every second',
      trigger: { kind: 'schedule', cron: '* * * * * *' },
      instructions: 'Check the links',
    });
    await expect
      .poll(async () => (await services.automations.runs(project.id, id, { limit: 100 })).runs.length, {
        timeout: 20_000,
        interval: 100,
      })
      .toBeGreaterThanOrEqual(4);
    await services.automations.update(project.id, id, { enabled: false });
    // Let a pass that had listed the schedule before it was disabled finish.
    await sleep(500);
    const runs = (await services.automations.runs(project.id, id, { limit: 100 })).runs;
    const slots = await services.storage.db
      .selectFrom('automation_slots')
      .select(['slot_at', 'run_id'])
      .where('automation_id', '=', id)
      .execute();
    // One run per claimed slot, each slot a different second, and every run a claimed slot's.
    expect(new Set(slots.map((s) => s.slot_at)).size).toBe(slots.length);
    expect(runs.map((r) => r.id).sort()).toEqual(slots.map((s) => s.run_id).sort());
    expect(runs.every((r) => r.trigger === 'schedule' && r.jobId !== null)).toBe(true);
    // Together the two processes logged as many started runs as there are: none started one twice.
    const started = children
      .map(
        (c) =>
          c
            .stderr()
            .split('\n')
            .filter((line) => line.includes('scheduled run started')).length,
      )
      .reduce((a, b) => a + b);
    expect(started).toBe(runs.length);
  });
});
