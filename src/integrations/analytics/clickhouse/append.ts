import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import { classBit, LATEST, NEVER } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { RowBinaryReader, RowBinaryWriter } from './row-binary.ts';
import { literal } from './sql-literal.ts';
import { type DayMasks, pairId, pairPage, pairVisitor, visitDeltas } from './visit-deltas.ts';

const DAY_MS = 86_400_000;

interface Pending {
  projectId: string;
  events: readonly PreparedEvent[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** What the lookups and the rows need of a view, computed once per view. */
interface Keyed {
  day: number;
  /** The visitor key's 16 bytes, latin1. */
  visitor: string;
  path: string;
  /** The event key's first 8 bytes, latin1 (see eventKeyBytes), or null. */
  key: string | null;
}

/**
 * The columns of `incoming` every insert writes, in this order (RowBinary, row-binary.ts): a
 * view (kind 0), a visits row (kind 1) or a visit_counts delta (kind 2); each kind leaves the
 * others' columns empty.
 */
const INCOMING_COLUMNS =
  'kind, project, day, ts, event_key, path, visitor_hi, visitor_lo, category, purpose, agent, ' +
  'classifier_version, user_agent, flags, status, referrer, verified, mask, side, prev, n, prevs, nexts';

const NO_KEY = '\0\0\0\0\0\0\0\0';
const EMPTY: readonly number[] = [];

/**
 * The first 8 bytes of an event key (latin1, one character per byte), as `event_key` stores
 * them (a UInt64, big-endian); 0 means "no id", so a key whose bytes are all 0 is stored as 1.
 */
export function eventKeyBytes(eventKey: string): string {
  const bytes = eventKey.length >= 8 ? eventKey.slice(0, 8) : eventKey.padEnd(8, '\0');
  return bytes === NO_KEY ? '\0\0\0\0\0\0\0\u0001' : bytes;
}

/**
 * Appends views: requests arriving together are grouped; their event keys are checked against
 * `event_keys` and their visitors' earlier visit days read from `visits` (two queries at once);
 * then the new views, the visits rows and the count deltas (visit-deltas.ts) go in one
 * RowBinary insert into `incoming` (values never pass through SQL text), which materialized
 * views split into the tables. Groups run one after another, so within this process the first
 * event with a key wins and every later one is a duplicate, and each group sees the visits of
 * the one before. A resolved append means the insert returned (see docs/analytics-engines.md for what
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
    const keyed = group.map(({ events }) => events.map(keyedOf));
    const [stored, known] = await Promise.all([
      this.storedKeys(group, keyed),
      this.knownVisits(group, keyed),
    ]);
    const out = new RowBinaryWriter();
    let rows = 0;
    const results: AppendResult[] = [];
    const added = new Map<string, Map<string, DayMasks>>();
    for (const [g, { projectId, events }] of group.entries()) {
      const seen = stored.get(projectId) ?? new Set<string>();
      stored.set(projectId, seen);
      let visits = added.get(projectId);
      if (!visits) {
        visits = new Map();
        added.set(projectId, visits);
      }
      const keys = keyed[g] as Keyed[];
      let accepted = 0;
      let duplicates = 0;
      for (let i = 0; i < events.length; i++) {
        const e = events[i] as PreparedEvent;
        const { day, visitor, path, key } = keys[i] as Keyed;
        if (key !== null) {
          const dayKey = `${day}|${key}`;
          if (seen.has(dayKey)) {
            duplicates++;
            continue;
          }
          seen.add(dayKey);
        }
        accepted++;
        const category = CATEGORY_CODES[e.category];
        const purpose = e.purpose === null ? 0 : PURPOSE_CODES[e.purpose];
        writeView(out, projectId, e, day, key, path, category, purpose);
        rows++;
        const bit = classBit(category, purpose, e.verified);
        if (bit === 0) continue;
        addClass(visits, pairId(visitor, path), day, bit);
        addClass(visits, visitor, day, bit);
      }
      results.push({ accepted, duplicates });
    }
    for (const [project, visits] of added) {
      const deltas = visitDeltas(known.get(project) ?? new Map(), visits);
      for (const v of deltas.visits) {
        // kind 1: a visits row (its mask) and a visit_days row (its arrays).
        out.uint8(1);
        out.string(project);
        out.int32(v.day);
        out.int64(0); // ts
        out.int64(0); // event_key
        out.string(pairPage(v.pair));
        const visitor = pairVisitor(v.pair);
        out.uint64FromLatin1(visitor, 0);
        out.uint64FromLatin1(visitor, 8);
        writeEmptyViewColumns(out);
        out.uint32(v.mask);
        out.uint8(0); // side
        out.int32(0); // prev
        out.int64(0); // n
        // Trailing sides left at their defaults are left out (page-query.ts reads a missing one
        // as NEVER / LATEST): a first visit's row has none.
        out.arrayInt32(v.prevs, lengthWithout(v.prevs, NEVER));
        out.arrayInt32(v.nexts, lengthWithout(v.nexts, LATEST));
        rows++;
      }
      for (const c of deltas.counts) {
        // kind 2: a visit_counts delta.
        out.uint8(2);
        out.string(project);
        out.int32(c.day);
        out.int64(0); // ts
        out.int64(0); // event_key
        out.string(c.page);
        out.int64(0); // visitor_hi
        out.int64(0); // visitor_lo
        writeEmptyViewColumns(out);
        out.uint32(0); // mask
        out.uint8(c.side);
        out.int32(c.prev);
        out.int64(c.n);
        out.arrayInt32(EMPTY);
        out.arrayInt32(EMPTY);
        rows++;
      }
    }
    if (rows > 0)
      await this.connection.insertBinary(`${this.connection.db}.incoming (${INCOMING_COLUMNS})`, out.bytes());
    return results;
  }

  /** Every stored visit day (with its classes) of the group's (page, visitor) pairs, per project. */
  private async knownVisits(group: Pending[], keyed: Keyed[][]): Promise<Map<string, Map<string, DayMasks>>> {
    const wanted = new Map<string, Set<string>>();
    for (const [g, { projectId }] of group.entries()) {
      let pairs = wanted.get(projectId);
      if (!pairs) {
        pairs = new Set();
        wanted.set(projectId, pairs);
      }
      for (const { visitor, path } of keyed[g] as Keyed[]) {
        pairs.add(pairId(visitor, path));
        pairs.add(visitor);
      }
    }
    const known = new Map<string, Map<string, DayMasks>>();
    for (const [projectId, pairs] of wanted) {
      const list = new RowBinaryWriter();
      for (const id of pairs) {
        list.uint64FromLatin1(id, 0);
        list.uint64FromLatin1(id, 8);
        list.string(pairPage(id));
      }
      // The pairs go as a table sent with the query: the primary key is searched with their set.
      const answer = new RowBinaryReader(
        await this.connection.queryBinary(
          `SELECT visitor_hi, visitor_lo, page, day, toUInt32(groupBitOr(mask))
            FROM ${this.connection.db}.visits
            WHERE project = ${literal(projectId)} AND (visitor_hi, visitor_lo, page) IN pairs
            GROUP BY visitor_hi, visitor_lo, page, day`,
          { name: 'pairs', structure: 'hi UInt64, lo UInt64, page String', rows: list.bytes() },
        ),
      );
      const byPair = new Map<string, DayMasks>();
      while (!answer.done) {
        const visitor = answer.uint64Latin1() + answer.uint64Latin1();
        const pair = pairId(visitor, answer.string());
        const day = answer.int32();
        const mask = answer.uint32();
        let days = byPair.get(pair);
        if (!days) {
          days = new Map();
          byPair.set(pair, days);
        }
        days.set(day, mask);
      }
      known.set(projectId, byPair);
    }
    return known;
  }

  /** The (day|key) pairs of the group's keyed events already stored, per project. */
  private async storedKeys(group: Pending[], keyed: Keyed[][]): Promise<Map<string, Set<string>>> {
    const wanted = new Map<string, { days: Set<number>; keys: Set<string> }>();
    for (const [g, { projectId }] of group.entries()) {
      for (const { day, key } of keyed[g] as Keyed[]) {
        if (key === null) continue;
        let entry = wanted.get(projectId);
        if (!entry) {
          entry = { days: new Set(), keys: new Set() };
          wanted.set(projectId, entry);
        }
        entry.days.add(day);
        entry.keys.add(key);
      }
    }
    const stored = new Map<string, Set<string>>();
    for (const [projectId, { days, keys }] of wanted) {
      const list = new RowBinaryWriter();
      for (const key of keys) list.uint64FromLatin1(key, 0);
      const answer = new RowBinaryReader(
        await this.connection.queryBinary(
          `SELECT DISTINCT day, event_key FROM ${this.connection.db}.event_keys
            WHERE project = ${literal(projectId)} AND day IN (${[...days].map((d) => literal(d)).join(', ')})
              AND event_key IN keys`,
          { name: 'keys', structure: 'key UInt64', rows: list.bytes() },
        ),
      );
      const found = new Set<string>();
      while (!answer.done) {
        const day = answer.int32();
        found.add(`${day}|${answer.uint64Latin1()}`);
      }
      stored.set(projectId, found);
    }
    return stored;
  }
}

function addClass(visits: Map<string, DayMasks>, pair: string, day: number, bit: number): void {
  const days = visits.get(pair);
  if (days) days.set(day, ((days.get(day) ?? 0) | bit) >>> 0);
  else visits.set(pair, new Map<number, number>().set(day, bit));
}

function keyedOf(e: PreparedEvent): Keyed {
  return {
    day: Math.floor(e.timestamp / DAY_MS),
    visitor: e.visitorKey.toString('latin1'),
    // The page as stored (UTF-8): a lone surrogate would come back from a lookup as U+FFFD.
    path: e.path.toWellFormed(),
    key: e.eventKey === null ? null : eventKeyBytes(e.eventKey),
  };
}

/** How many of `values` remain once the trailing ones equal to `fill` are left out. */
function lengthWithout(values: readonly number[], fill: number): number {
  let length = values.length;
  while (length > 0 && values[length - 1] === fill) length--;
  return length;
}

/** kind 0: a view, with its event key's bytes (or 0). */
function writeView(
  out: RowBinaryWriter,
  projectId: string,
  e: PreparedEvent,
  day: number,
  key: string | null,
  path: string,
  category: number,
  purpose: number,
): void {
  out.uint8(0);
  out.string(projectId);
  out.int32(day);
  out.int64(e.timestamp);
  if (key === null) out.int64(0);
  else out.uint64FromLatin1(key, 0);
  out.string(path);
  out.uint64FromBytes(e.visitorKey, 0);
  out.uint64FromBytes(e.visitorKey, 8);
  out.uint8(category);
  out.uint8(purpose);
  out.string(e.agent);
  out.uint32(e.classifierVersion);
  out.string(e.userAgent);
  out.uint8(e.flags);
  out.nullableUInt16(e.status);
  out.nullableString(e.referrer);
  out.uint8(e.verified ? 1 : 0);
  out.uint32(0); // mask
  out.uint8(0); // side
  out.int32(0); // prev
  out.int64(0); // n
  out.arrayInt32(EMPTY);
  out.arrayInt32(EMPTY);
}

/** category … verified of a row that is not a view. */
function writeEmptyViewColumns(out: RowBinaryWriter): void {
  out.uint8(0); // category
  out.uint8(0); // purpose
  out.string(''); // agent
  out.uint32(0); // classifier_version
  out.string(''); // user_agent
  out.uint8(0); // flags
  out.nullableUInt16(null);
  out.nullableString(null);
  out.uint8(0); // verified
}
