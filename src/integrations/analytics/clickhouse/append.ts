import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import type { ClickHouseConnection } from './connection.ts';
import { literal } from './sql-literal.ts';

const DAY_MS = 86_400_000;

interface Pending {
  projectId: string;
  events: readonly PreparedEvent[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** A row of `views` as JSONEachRow sends it (UInt64 as decimal strings). */
interface ViewRow {
  project: string;
  day: number;
  ts: number;
  event_key: string;
  path: string;
  visitor_hi: string;
  visitor_lo: string;
  category: number;
  purpose: number;
  agent: string;
  classifier_version: number;
  user_agent: string;
  flags: number;
  status: number | null;
  referrer: string | null;
}

/** The first 8 bytes of an event key (latin1, one character per byte); 0 means "no id". */
export function eventKeyNumber(eventKey: string): bigint {
  const key = Buffer.from(eventKey.slice(0, 8), 'latin1').readBigUInt64BE(0);
  return key === 0n ? 1n : key;
}

/**
 * Appends views: requests arriving together are grouped, their event keys checked against
 * `event_keys` in one query, and the new views sent in one JSONEachRow insert (values never
 * pass through SQL text). Groups run one after another, so within this process the first
 * event with a key wins and every later one is a duplicate. A resolved append means the
 * insert returned (see docs/analytics.md for what ClickHouse guarantees then).
 */
export class Appender {
  private queue: Pending[] = [];
  private running = false;

  private readonly connection: ClickHouseConnection;

  constructor(connection: ClickHouseConnection) {
    this.connection = connection;
  }

  append(projectId: string, events: readonly PreparedEvent[]): Promise<AppendResult> {
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0 });
    return new Promise((resolve, reject) => {
      this.queue.push({ projectId, events, resolve, reject });
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  /** Resolves when every queued append is done. */
  async idle(): Promise<void> {
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue;
        this.queue = [];
        try {
          const results = await this.write(group);
          for (const [i, p] of group.entries()) p.resolve(results[i] as AppendResult);
        } catch (error) {
          for (const p of group) p.reject(error);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async write(group: Pending[]): Promise<AppendResult[]> {
    const stored = await this.storedKeys(group);
    const rows: ViewRow[] = [];
    const results: AppendResult[] = [];
    for (const { projectId, events } of group) {
      const seen = stored.get(projectId) ?? new Set<string>();
      stored.set(projectId, seen);
      let accepted = 0;
      let duplicates = 0;
      for (const e of events) {
        const day = Math.floor(e.timestamp / DAY_MS);
        let key = '0';
        if (e.eventKey !== null) {
          key = eventKeyNumber(e.eventKey).toString();
          const dayKey = `${day}|${key}`;
          if (seen.has(dayKey)) {
            duplicates++;
            continue;
          }
          seen.add(dayKey);
        }
        accepted++;
        rows.push({
          project: projectId,
          day,
          ts: e.timestamp,
          event_key: key,
          path: e.path.toWellFormed(),
          visitor_hi: e.visitorKey.readBigUInt64BE(0).toString(),
          visitor_lo: e.visitorKey.readBigUInt64BE(8).toString(),
          category: CATEGORY_CODES[e.category],
          purpose: e.purpose === null ? 0 : PURPOSE_CODES[e.purpose],
          agent: e.agent.toWellFormed(),
          classifier_version: e.classifierVersion,
          user_agent: e.userAgent.toWellFormed(),
          flags: e.flags,
          status: e.status,
          referrer: e.referrer === null ? null : e.referrer.toWellFormed(),
        });
      }
      results.push({ accepted, duplicates });
    }
    if (rows.length > 0) {
      await this.connection.client.insert({
        table: `${this.connection.db}.views`,
        values: rows,
        format: 'JSONEachRow',
      });
    }
    return results;
  }

  /** The (day|key) pairs of the group's keyed events already stored, per project. */
  private async storedKeys(group: Pending[]): Promise<Map<string, Set<string>>> {
    const wanted = new Map<string, { days: Set<number>; keys: Set<string> }>();
    for (const { projectId, events } of group) {
      for (const e of events) {
        if (e.eventKey === null) continue;
        let entry = wanted.get(projectId);
        if (!entry) {
          entry = { days: new Set(), keys: new Set() };
          wanted.set(projectId, entry);
        }
        entry.days.add(Math.floor(e.timestamp / DAY_MS));
        entry.keys.add(eventKeyNumber(e.eventKey).toString());
      }
    }
    const stored = new Map<string, Set<string>>();
    for (const [projectId, { days, keys }] of wanted) {
      const found = await this.connection.query<{ day: number; event_key: string }>(
        `SELECT DISTINCT day, event_key FROM ${this.connection.db}.event_keys
          WHERE project = ${literal(projectId)} AND day IN ${tuple([...days].map(String))}
            AND event_key IN ${tuple([...keys])}`,
      );
      stored.set(projectId, new Set(found.map((r) => `${r.day}|${r.event_key}`)));
    }
    return stored;
  }
}

/** `(a, b, …)` of integers already in decimal (checked), for IN. */
function tuple(decimals: string[]): string {
  for (const d of decimals) if (!/^-?\d+$/.test(d)) throw new Error(`Not an integer: ${d}`);
  return `(${decimals.map((d) => literal(BigInt(d))).join(', ')})`;
}
