import { sql } from 'kysely';
import { type Migration, Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { toJobView } from '../../src/domain/jobs/job-view.ts';
import type { Storage } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import * as m0001 from '../../src/storage/migrations/0001_initial.ts';
import * as m0002 from '../../src/storage/migrations/0002_sessions.ts';
import * as m0003 from '../../src/storage/migrations/0003_turn_model.ts';
import * as m0004 from '../../src/storage/migrations/0004_accounts.ts';
import * as m0005 from '../../src/storage/migrations/0005_key_limits.ts';
import * as m0006 from '../../src/storage/migrations/0006_job_events.ts';
import * as m0007 from '../../src/storage/migrations/0007_analytics_metadata.ts';
import * as m0008 from '../../src/storage/migrations/0008_webhooks.ts';
import { findJob } from '../../src/storage/queries/jobs.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../helpers/storage.ts';

const BEFORE_COST: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_sessions': m0002,
  '0003_turn_model': m0003,
  '0004_accounts': m0004,
  '0005_key_limits': m0005,
  '0006_job_events': m0006,
  '0007_analytics_metadata': m0007,
  '0008_webhooks': m0008,
};

describe(`migration 0010_turn_cost on existing data (${testBackend})`, () => {
  let database: TestDatabase;
  let storage: Storage;
  afterEach(async () => {
    await storage?.close();
    await database?.drop();
  });

  it("adds up each job's recorded tokens and counts its turns as unpriced, leaving others at zero", async () => {
    database = createTestDatabase();
    storage = database.open();
    const { config } = database;
    const schema = config.kind === 'postgres' ? config.schema : null;
    if (schema) await sql`create schema ${sql.id(schema)}`.execute(storage.db);
    const older = new Migrator({
      db: storage.db,
      provider: { getMigrations: async () => BEFORE_COST },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    expect((await older.migrateToLatest()).error).toBeUndefined();

    const at = '2026-11-20T10:00:00.000Z';
    await sql`insert into projects (id, name, repository, base_branch, settings, created_at)
      values ('prj_1', 'Docs', '/srv/docs', 'main', '{}', ${at})`.execute(storage.db);
    for (const job of ['job_used', 'job_fresh']) {
      await sql`insert into jobs (id, project_id, status, repository, branch, base_branch, created_at, updated_at)
        values (${job}, 'prj_1', 'completed', '/srv/docs', ${`docwright/${job}`}, 'main', ${at}, ${at})`.execute(
        storage.db,
      );
    }
    const turns: Array<[string, string, number, string | null]> = [
      ['turn_1', 'job_used', 1, '{"inputTokens":1200,"outputTokens":300}'],
      ['turn_2', 'job_used', 2, '{"inputTokens":800,"outputTokens":100}'],
      ['turn_3', 'job_used', 3, null],
      ['turn_4', 'job_fresh', 1, null],
    ];
    for (const [id, job, seq, usage] of turns) {
      await sql`insert into turns (id, job_id, seq, prompt, status, attempts, usage, created_at)
        values (${id}, ${job}, ${seq}, 'p', 'succeeded', 1, ${usage}, ${at})`.execute(storage.db);
    }

    expect((await migrate(storage, config)).applied).toContain('0010_turn_cost');
    const used = await findJob(storage.db, 'prj_1', 'job_used');
    const fresh = await findJob(storage.db, 'prj_1', 'job_fresh');
    if (!used || !fresh) throw new Error('jobs missing after the migration');
    // Recorded before estimates existed: tokens kept, cost unknown rather than zero.
    expect(toJobView(used).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 400,
      costUsd: null,
      unpricedTurns: 2,
    });
    expect(toJobView(fresh).usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedTurns: 0 });
    const costs = await storage.db.selectFrom('turns').select(['id', 'cost_usd']).orderBy('id').execute();
    expect(costs.every((turn) => turn.cost_usd === null)).toBe(true);
  });
});
