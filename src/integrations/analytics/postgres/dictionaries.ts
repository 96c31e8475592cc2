import { createHash } from 'node:crypto';
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** Most values a dictionary keeps in memory (ids never change, so any subset is correct). */
const CACHE_LIMIT = 200_000;

/**
 * A dictionary table (`id serial, hash bytea unique, value text`): each distinct path, agent,
 * user agent or referrer is stored once and the views hold its number. Entries are created
 * outside the append's transaction and never deleted, so a number, once read, stays valid.
 */
export class Dictionary {
  private readonly table: string;
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();

  constructor(table: string) {
    this.table = table;
  }

  /** The numbers of `values` (created when new), in order. */
  async idsFor(db: Queryable, values: readonly string[]): Promise<number[]> {
    const missing = [...new Set(values.filter((v) => !this.ids.has(v)))];
    if (missing.length > 0) {
      const hashes = missing.map(hashOf);
      await db.query(
        `insert into ${this.table} (hash, value) select * from unnest($1::bytea[], $2::text[])
         order by 1 on conflict (hash) do nothing`,
        [hashes, missing],
      );
      const found = await db.query<{ id: number; value: string }>(
        `select id, value from ${this.table} where hash = any($1::bytea[])`,
        [hashes],
      );
      if (this.ids.size + found.rows.length > CACHE_LIMIT) this.ids.clear();
      for (const row of found.rows) this.ids.set(row.value, row.id);
    }
    return values.map((v) => {
      const id = this.ids.get(v);
      if (id === undefined) throw new Error(`${this.table}: no number for a value just stored`);
      return id;
    });
  }

  /** The values of stored numbers. */
  async namesOf(db: Queryable, ids: readonly number[]): Promise<Map<number, string>> {
    const missing = [...new Set(ids.filter((id) => !this.names.has(id)))];
    if (missing.length > 0) {
      const found = await db.query<{ id: number; value: string }>(
        `select id, value from ${this.table} where id = any($1::int4[])`,
        [missing],
      );
      if (this.names.size + found.rows.length > CACHE_LIMIT) this.names.clear();
      for (const row of found.rows) this.names.set(row.id, row.value);
    }
    const result = new Map<number, string>();
    for (const id of ids) {
      const name = this.names.get(id);
      if (name === undefined) throw new Error(`${this.table}: unknown number ${id}`);
      result.set(id, name);
    }
    return result;
  }
}

function hashOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest().subarray(0, 16);
}

/** The project's number in the views, created on first use. */
export class ProjectNumbers {
  private readonly numbers = new Map<string, number>();

  async numberOf(db: Queryable, projectId: string, create: boolean): Promise<number | null> {
    const known = this.numbers.get(projectId);
    if (known !== undefined) return known;
    if (create) {
      await db.query(
        'insert into analytics_projects (project_id) values ($1) on conflict (project_id) do nothing',
        [projectId],
      );
    }
    const found = await db.query<{ id: number }>('select id from analytics_projects where project_id = $1', [
      projectId,
    ]);
    const id = found.rows[0]?.id;
    if (id === undefined) return null;
    this.numbers.set(projectId, id);
    return id;
  }
}
