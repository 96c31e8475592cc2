import type pg from 'pg';
import { categoryFromCode, purposeFromCode } from '../../../domain/analytics/categories.ts';
import {
  decodeScanCursor,
  nextScanCursor,
  type PreparedEvent,
  type ViewScan,
} from '../../../domain/analytics/store.ts';
import type { Dictionary } from './dictionaries.ts';

const DAY_MS = 86_400_000;

interface ViewRow {
  day: number;
  ms: number;
  path: number;
  visitor: Buffer;
  category: number;
  purpose: number;
  flags: number;
  agent: number;
  user_agent: number;
  referrer: number | null;
  status: number | null;
  classifier: number;
  verified: boolean;
  event_key: string | null;
}

/**
 * A page of the project's views in (time, then every stored column) order: identical views
 * are interchangeable, so skipping the first n of a millisecond is stable across calls.
 */
export async function scanViews(
  pool: pg.Pool,
  dictionaries: { paths: Dictionary; agents: Dictionary; userAgents: Dictionary; referrers: Dictionary },
  project: number,
  cursor: string | null,
  limit: number,
): Promise<ViewScan> {
  const from = decodeScanCursor(cursor);
  const day = Math.floor(from.timestamp / DAY_MS);
  const ms = from.timestamp - day * DAY_MS;
  const result = await pool.query<ViewRow>(
    `select day, ms, path, visitor, category, purpose, flags, agent, user_agent, referrer, status, classifier,
            verified, event_key::text as event_key
       from analytics_views
      where project = $1 and (day, ms) >= ($2::int4, $3::int4)
      order by day, ms, path, visitor, event_key nulls first, category, purpose, flags, agent, user_agent,
               referrer nulls first, status nulls first, classifier, verified
      offset $4 limit $5`,
    [project, cursor === null ? -(2 ** 31) : day, cursor === null ? 0 : ms, from.skip, limit],
  );
  const [paths, agents, userAgents, referrers] = await Promise.all([
    dictionaries.paths.namesOf(
      pool,
      result.rows.map((r) => r.path),
    ),
    dictionaries.agents.namesOf(
      pool,
      result.rows.map((r) => r.agent),
    ),
    dictionaries.userAgents.namesOf(
      pool,
      result.rows.map((r) => r.user_agent),
    ),
    dictionaries.referrers.namesOf(
      pool,
      result.rows.flatMap((r) => (r.referrer === null ? [] : [r.referrer])),
    ),
  ]);
  const views: PreparedEvent[] = result.rows.map((r) => ({
    eventKey: r.event_key === null ? null : keyBytes(r.event_key),
    timestamp: r.day * DAY_MS + r.ms,
    path: paths.get(r.path) as string,
    visitorKey: r.visitor,
    category: categoryFromCode(r.category),
    purpose: purposeFromCode(r.purpose),
    agent: agents.get(r.agent) as string,
    classifierVersion: r.classifier,
    userAgent: userAgents.get(r.user_agent) as string,
    flags: r.flags,
    status: r.status,
    referrer: r.referrer === null ? null : (referrers.get(r.referrer) as string),
    verified: r.verified,
  }));
  return { views, next: nextScanCursor(from, views, limit) };
}

export async function countProjectViews(pool: pg.Pool, project: number): Promise<number> {
  const result = await pool.query<{ n: string }>(
    'select count(*) as n from analytics_views where project = $1',
    [project],
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** The stored int8 back as the 8 latin1 characters append.ts took it from. */
function keyBytes(int8: string): string {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(BigInt(int8), 0);
  return bytes.toString('latin1');
}
