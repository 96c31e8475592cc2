import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import { classBit } from './classes.ts';
import { type ClickHouseConnection, tsv } from './connection.ts';
import { literal } from './sql-literal.ts';
import { uint64Decimal } from './uint64-decimal.ts';
import { type DayMasks, pairId, pairOf, visitDeltas } from './visit-deltas.ts';

const DAY_MS = 86_400_000;

interface Pending {
  projectId: string;
  events: readonly PreparedEvent[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** A row of `incoming` (kind 0, a view) as JSONEachRow sends it (UInt64 as decimal strings). */
interface ViewRow {
  kind: 0;
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
  verified: 0 | 1;
}

/** The other rows of `incoming`: a visits row (kind 1) or a visit_counts delta (kind 2). */
type VisitRowOut = {
  kind: 1;
  project: string;
  visitor_hi: string;
  visitor_lo: string;
  path: string;
  day: number;
  mask: number;
  prevs: number[];
  nexts: number[];
};
type CountRowOut = {
  kind: 2;
  project: string;
  side: number;
  day: number;
  path: string;
  prev: number;
  n: number;
};

/**
 * The visitor key's halves in decimal, computed once per view although both the lookup and the
 * insert need them.
 */
const halves = new WeakMap<PreparedEvent, { hi: string; lo: string }>();
function visitorHalves(e: PreparedEvent): { hi: string; lo: string } {
  let found = halves.get(e);
  if (!found) {
    found = { hi: uint64Decimal(e.visitorKey, 0), lo: uint64Decimal(e.visitorKey, 8) };
    halves.set(e, found);
  }
  return found;
}

/** The first 8 bytes of an event key (latin1, one character per byte); 0 means "no id". */
export function eventKeyNumber(eventKey: string): bigint {
  const key = Buffer.from(eventKey.slice(0, 8), 'latin1').readBigUInt64BE(0);
  return key === 0n ? 1n : key;
}

/**
 * Appends views: requests arriving together are grouped; their event keys are checked against
 * `event_keys` and their visitors' earlier visit days read from `visits` (two queries at once);
 * then the new views, the visits rows and the count deltas (visit-deltas.ts) go in one
 * JSONEachRow insert into `incoming` (values never pass through SQL text), which materialized
 * views split into the tables. Groups run one after another, so within this process the first
 * event with a key wins and every later one is a duplicate, and each group sees the visits of
 * the one before. A resolved append means the insert returned (see docs/analytics.md for what
 * ClickHouse guarantees then).
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
    const [stored, known] = await Promise.all([this.storedKeys(group), this.knownVisits(group)]);
    const rows: Array<ViewRow | VisitRowOut | CountRowOut> = [];
    const results: AppendResult[] = [];
    const added = new Map<string, Map<string, DayMasks>>();
    for (const { projectId, events } of group) {
      const seen = stored.get(projectId) ?? new Set<string>();
      stored.set(projectId, seen);
      let visits = added.get(projectId);
      if (!visits) {
        visits = new Map();
        added.set(projectId, visits);
      }
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
        const path = e.path.toWellFormed();
        const { hi, lo } = visitorHalves(e);
        const category = CATEGORY_CODES[e.category];
        const purpose = e.purpose === null ? 0 : PURPOSE_CODES[e.purpose];
        rows.push({
          kind: 0,
          project: projectId,
          day,
          ts: e.timestamp,
          event_key: key,
          path,
          visitor_hi: hi,
          visitor_lo: lo,
          category,
          purpose,
          agent: e.agent.toWellFormed(),
          classifier_version: e.classifierVersion,
          user_agent: e.userAgent.toWellFormed(),
          flags: e.flags,
          status: e.status,
          referrer: e.referrer === null ? null : e.referrer.toWellFormed(),
          verified: e.verified ? 1 : 0,
        });
        const bit = classBit(category, purpose, e.verified);
        if (bit === 0) continue;
        for (const page of [path, '']) {
          const pair = pairId({ page, hi, lo });
          let days = visits.get(pair);
          if (!days) {
            days = new Map();
            visits.set(pair, days);
          }
          days.set(day, ((days.get(day) ?? 0) | bit) >>> 0);
        }
      }
      results.push({ accepted, duplicates });
    }
    for (const [project, visits] of added) {
      const deltas = visitDeltas(known.get(project) ?? new Map(), visits);
      for (const v of deltas.visits) {
        const { page, hi, lo } = pairOf(v.pair);
        rows.push({
          kind: 1,
          project,
          visitor_hi: hi,
          visitor_lo: lo,
          path: page,
          day: v.day,
          mask: v.mask,
          prevs: v.prevs,
          nexts: v.nexts,
        });
      }
      for (const c of deltas.counts) {
        rows.push({ kind: 2, project, side: c.side, day: c.day, path: c.page, prev: c.prev, n: c.n });
      }
    }
    if (rows.length > 0) {
      const send = () =>
        this.connection.client.insert({
          table: `${this.connection.db}.incoming`,
          values: rows,
          format: 'JSONEachRow',
        });
      try {
        await send();
      } catch (error) {
        // EPIPE: the server had closed the kept-alive socket before the body was written
        // (its keep-alive timer ran while this process was busy computing), so it stored
        // nothing; the insert goes once more on a new socket. Other errors are not retried.
        if (!isBrokenPipe(error)) throw error;
        await send();
      }
    }
    return results;
  }

  /** Every stored visit day (with its classes) of the group's (page, visitor) pairs, per project. */
  private async knownVisits(group: Pending[]): Promise<Map<string, Map<string, DayMasks>>> {
    const wanted = new Map<string, Set<string>>();
    for (const { projectId, events } of group) {
      let pairs = wanted.get(projectId);
      if (!pairs) {
        pairs = new Set();
        wanted.set(projectId, pairs);
      }
      for (const e of events) {
        const { hi, lo } = visitorHalves(e);
        pairs.add(pairId({ hi, lo, page: e.path.toWellFormed() }));
        pairs.add(pairId({ hi, lo, page: '' }));
      }
    }
    const known = new Map<string, Map<string, DayMasks>>();
    for (const [projectId, pairs] of wanted) {
      const rows: string[] = [];
      for (const id of pairs) {
        const pair = pairOf(id);
        rows.push(`${pair.hi}\t${pair.lo}\t${tsv(pair.page)}`);
      }
      // The pairs go as a table sent with the query: the primary key is searched with their set.
      const found = await this.connection.queryWith<{
        hi: string;
        lo: string;
        page: string;
        day: number;
        mask: number;
      }>(
        `SELECT visitor_hi AS hi, visitor_lo AS lo, page, day, groupBitOr(mask) AS mask
          FROM ${this.connection.db}.visits
          WHERE project = ${literal(projectId)} AND (visitor_hi, visitor_lo, page) IN pairs
          GROUP BY visitor_hi, visitor_lo, page, day`,
        { name: 'pairs', structure: 'hi UInt64, lo UInt64, page String', rows },
      );
      const byPair = new Map<string, DayMasks>();
      for (const r of found) {
        const pair = pairId({ page: r.page, hi: String(r.hi), lo: String(r.lo) });
        let days = byPair.get(pair);
        if (!days) {
          days = new Map();
          byPair.set(pair, days);
        }
        days.set(Number(r.day), Number(r.mask));
      }
      known.set(projectId, byPair);
    }
    return known;
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
      const found = await this.connection.queryWith<{ day: number; event_key: string }>(
        `SELECT DISTINCT day, event_key FROM ${this.connection.db}.event_keys
          WHERE project = ${literal(projectId)} AND day IN (${[...days].map((d) => literal(d)).join(', ')})
            AND event_key IN keys`,
        { name: 'keys', structure: 'key UInt64', rows: [...keys] },
      );
      stored.set(projectId, new Set(found.map((r) => `${r.day}|${r.event_key}`)));
    }
    return stored;
  }
}

/** A write to a socket the server had already closed (nothing of the request was read). */
function isBrokenPipe(error: unknown): boolean {
  const code = (value: unknown) => (value as { code?: unknown } | null | undefined)?.code;
  return code(error) === 'EPIPE' || (error instanceof Error && code(error.cause) === 'EPIPE');
}
