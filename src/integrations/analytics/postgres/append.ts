import type pg from 'pg';
import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import { type AppendResult, EVENT_FLAGS_MASK, type PreparedEvent } from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';
import { lockProject } from './schema.ts';
import { classBitsSql, DAY_MS } from './visits.ts';

export interface AppendDictionaries {
  paths: Dictionary;
  agents: Dictionary;
  userAgents: Dictionary;
  referrers: Dictionary;
}

/** One caller's append: its project's number and events. */
export interface AppendRequest {
  project: number;
  events: readonly PreparedEvent[];
}

/** A view ready for the table: dictionary numbers resolved. */
interface Row {
  day: number;
  ms: number;
  path: number;
  visitor: Buffer;
  category: number;
  purpose: number;
  flags: number;
  agent: number;
  userAgent: number;
  referrer: number | null;
  status: number | null;
  classifier: number;
  verified: boolean;
  key: string | null;
}

/**
 * Appends the requests' views in one transaction (committed when the promise resolves), and
 * their counted ones to analytics_pending, which a fold (record-visits.ts) moves into the
 * first-visit table later, in bulk. Appends to a project are serialised across processes by an
 * advisory lock (reclassification and deletion take it too).
 *
 * `writers` is a pool of pipelined connections: the transaction's statements (begin, the
 * locks, one insert per project, commit) leave in one write and come back in one round trip,
 * which on a loaded machine is most of an append's time. Dictionary numbers come from `pool`.
 */
export async function appendViews(
  pool: pg.Pool,
  writers: pg.Pool,
  dictionaries: AppendDictionaries,
  requests: readonly AppendRequest[],
): Promise<AppendResult[]> {
  const rowsPerRequest = await resolve(pool, dictionaries, requests);
  // One insert per project: its requests' views deduplicated together, in order (first wins).
  const byProject = new Map<number, number[]>();
  requests.forEach((r, i) => {
    const list = byProject.get(r.project);
    if (list) list.push(i);
    else byProject.set(r.project, [i]);
  });
  const client = await writers.connect();
  let broken = false;
  try {
    // Every statement is sent before the first answer is read; each settles on its own. After
    // a failed one the transaction is aborted, and `commit` ends it as a rollback.
    const statements: Array<Promise<unknown>> = [client.query('begin')];
    for (const project of [...byProject.keys()].sort((a, b) => a - b)) {
      statements.push(lockProject(client, project));
    }
    const inserts = [...byProject].map(([project, indexes]) => {
      const rows = indexes.flatMap((i) => rowsPerRequest[i] as Row[]);
      // The batch against itself first (the first wins), then against the table: a key the
      // table holds already is not returned by the insert.
      const seen = new Set<string>();
      const candidates = rows.filter((row) => {
        if (row.key === null) return true;
        const id = `${row.day}|${row.key}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
      return insertViews(client, project, candidates);
    });
    statements.push(...inserts, client.query('commit'));
    const settled = await Promise.allSettled(statements);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const stored = await Promise.all(inserts);
    const results: AppendResult[] = [];
    [...byProject.values()].forEach((indexes, k) => {
      const inserted = stored[k] as Set<string>;
      const taken = new Set<string>();
      for (const i of indexes) {
        let kept = 0;
        let duplicates = 0;
        for (const row of rowsPerRequest[i] as Row[]) {
          if (row.key !== null) {
            const id = `${row.day}|${row.key}`;
            if (!inserted.has(id) || taken.has(id)) {
              duplicates++;
              continue;
            }
            taken.add(id);
          }
          kept++;
        }
        results[i] = { accepted: kept, duplicates };
      }
    });
    return results;
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    // After a failure the connection may be mid-transaction: it is closed, not pooled again.
    client.release(broken);
  }
}

async function resolve(
  pool: pg.Pool,
  d: AppendDictionaries,
  requests: readonly AppendRequest[],
): Promise<Row[][]> {
  const events = requests.flatMap((r) => r.events);
  const [paths, agents, userAgents, referrers] = await Promise.all([
    d.paths.idsFor(
      pool,
      events.map((e) => e.path),
    ),
    d.agents.idsFor(
      pool,
      events.map((e) => e.agent),
    ),
    d.userAgents.idsFor(
      pool,
      events.map((e) => e.userAgent),
    ),
    d.referrers.idsFor(
      pool,
      events.flatMap((e) => (e.referrer === null ? [] : [e.referrer])),
    ),
  ]);
  let n = 0;
  let r = 0;
  return requests.map((request) =>
    request.events.map((e): Row => {
      const i = n++;
      const day = Math.floor(e.timestamp / DAY_MS);
      return {
        day,
        ms: e.timestamp - day * DAY_MS,
        path: paths[i] as number,
        visitor: e.visitorKey,
        category: CATEGORY_CODES[e.category],
        purpose: e.purpose === null ? 0 : PURPOSE_CODES[e.purpose],
        flags: e.flags & EVENT_FLAGS_MASK,
        agent: agents[i] as number,
        userAgent: userAgents[i] as number,
        referrer: e.referrer === null ? null : (referrers[r++] as number),
        status: e.status,
        classifier: e.classifierVersion,
        verified: e.verified,
        key: e.eventKey === null ? null : eventKey(e.eventKey),
      };
    }),
  );
}

/** The first 8 bytes of the key's digest (latin1: one character per byte) as a signed int8. */
function eventKey(latin1: string): string {
  const bytes = Buffer.alloc(8);
  bytes.write(latin1.slice(0, 8), 'latin1');
  return bytes.readBigInt64LE(0).toString();
}

/**
 * Inserts the views and queues the counted ones (class bits, visits.ts) in analytics_pending,
 * in one statement; returns the `day|key` of the keyed ones stored (not already there).
 */
async function insertViews(client: pg.PoolClient, project: number, rows: Row[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const result = await client.query<{ day: number; event_key: string }>(
    `with stored as (
       insert into analytics_views as v
         (project, day, ms, path, visitor, category, purpose, flags, agent, user_agent, referrer, status, classifier,
          event_key, verified)
       select $1, * from unnest($2::int4[], $3::int4[], $4::int4[], $5::bytea[], $6::int2[], $7::int2[], $8::int2[],
                                $9::int4[], $10::int4[], $11::int4[], $12::int2[], $13::int4[], $14::int8[], $15::bool[])
       on conflict do nothing
       returning v.day, v.ms, v.path, v.visitor, v.event_key, ${classBitsSql('v')} as bits
     ), queued as (
       insert into analytics_pending (project, day, ms, path, visitor, bits)
       select $1, day, ms, path, visitor, bits from stored where bits <> 0
     )
     select day, event_key from stored where event_key is not null`,
    [
      project,
      rows.map((r) => r.day),
      rows.map((r) => r.ms),
      rows.map((r) => r.path),
      rows.map((r) => r.visitor),
      rows.map((r) => r.category),
      rows.map((r) => r.purpose),
      rows.map((r) => r.flags),
      rows.map((r) => r.agent),
      rows.map((r) => r.userAgent),
      rows.map((r) => r.referrer),
      rows.map((r) => r.status),
      rows.map((r) => r.classifier),
      rows.map((r) => r.key),
      rows.map((r) => r.verified),
    ],
  );
  const stored = new Set<string>();
  for (const r of result.rows) stored.add(`${r.day}|${r.event_key}`);
  return stored;
}
