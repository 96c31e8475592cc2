import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import { eventKeyBytes } from './append.ts';
import { type ClickHouseConnection, tsv } from './connection.ts';
import { literal } from './sql-literal.ts';
import { uint64Decimal } from './uint64-decimal.ts';

const DAY_MS = 86_400_000;

/** The UInt64 `event_key` stores for an event key: its bytes as appends write them (eventKeyBytes). */
const eventKeyNumber = (eventKey: string): bigint =>
  Buffer.from(eventKeyBytes(eventKey), 'latin1').readBigUInt64BE(0);

/** The columns of `appends` a view (kind 0) fills, in the order `viewLine` writes them. */
const COLUMNS =
  'kind, project, day, ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent, classifier_version, user_agent, flags, status, referrer, verified';

/**
 * The first half of a bulk load: stores views and their event keys in one TabSeparated insert
 * into `appends` (the materialized views fill `views` and `event_keys`), without the
 * first-visit tables, which `rebuildVisits` then builds for the whole project at once. Events
 * whose (day, event key) is stored already, or came earlier in the batch, are duplicates, as
 * for `append`. Until the rebuild, the project's visitor exports are wrong, and no other
 * process may append to the project (see docs/analytics.md, "Moving to another engine").
 */
export async function bulkInsert(
  connection: ClickHouseConnection,
  projectId: string,
  events: readonly PreparedEvent[],
  /** Aborts when the project's lock is lost (see Locks): nothing is inserted then. */
  lost: AbortSignal,
): Promise<AppendResult> {
  if (events.length === 0) return { accepted: 0, duplicates: 0 };
  const stored = await storedKeys(connection, projectId, events);
  const project = tsv(projectId.toWellFormed());
  const lines: string[] = [];
  let duplicates = 0;
  for (const e of events) {
    const day = Math.floor(e.timestamp / DAY_MS);
    let key = '0';
    if (e.eventKey !== null) {
      key = eventKeyNumber(e.eventKey).toString();
      const dayKey = `${day}|${key}`;
      if (stored.has(dayKey)) {
        duplicates++;
        continue;
      }
      stored.add(dayKey);
    }
    lines.push(viewLine(project, day, key, e));
  }
  lost.throwIfAborted();
  if (lines.length > 0) {
    await connection.longCommand(
      `INSERT INTO ${connection.db}.appends (${COLUMNS}) FORMAT TabSeparated\n${lines.join('\n')}\n`,
    );
  }
  return { accepted: lines.length, duplicates };
}

/** One view as a TabSeparated line of `appends` (NULL as `\N`). */
function viewLine(project: string, day: number, key: string, e: PreparedEvent): string {
  const text = (value: string) => tsv(value.toWellFormed());
  return [
    '0',
    project,
    day,
    Math.trunc(e.timestamp),
    key,
    text(e.path),
    uint64Decimal(e.visitorKey, 0),
    uint64Decimal(e.visitorKey, 8),
    CATEGORY_CODES[e.category],
    e.purpose === null ? 0 : PURPOSE_CODES[e.purpose],
    text(e.agent),
    e.classifierVersion,
    text(e.userAgent),
    e.flags,
    e.status === null ? '\\N' : e.status,
    e.referrer === null ? '\\N' : text(e.referrer),
    e.verified ? 1 : 0,
  ].join('\t');
}

/** The batch's (day|key) pairs already in `event_keys`. */
async function storedKeys(
  connection: ClickHouseConnection,
  projectId: string,
  events: readonly PreparedEvent[],
): Promise<Set<string>> {
  const days = new Set<number>();
  const keys = new Set<string>();
  for (const e of events) {
    if (e.eventKey === null) continue;
    days.add(Math.floor(e.timestamp / DAY_MS));
    keys.add(eventKeyNumber(e.eventKey).toString());
  }
  if (keys.size === 0) return new Set();
  const found = await connection.queryWith<{ day: number; event_key: string }>(
    `SELECT DISTINCT day, event_key FROM ${connection.db}.event_keys
      WHERE project = ${literal(projectId)} AND day IN (${[...days].map((d) => literal(d)).join(', ')})
        AND event_key IN keys`,
    { name: 'keys', structure: 'key UInt64', rows: [...keys] },
  );
  return new Set(found.map((r) => `${r.day}|${r.event_key}`));
}
