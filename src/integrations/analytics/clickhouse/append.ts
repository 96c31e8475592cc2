import { CATEGORY_CODES, PURPOSE_CODES } from '../../../domain/analytics/categories.ts';
import type { AppendResult, PreparedEvent } from '../../../domain/analytics/store.ts';
import type { Locks } from '../../../storage/locks.ts';
import { MAX_GROUP_VIEWS, takeGroup } from '../append-groups.ts';
import { APPENDS_COLUMNS, writeCountDelta, writePairDay, writeView } from './appends-rows.ts';
import { classIndex, QUARTER_MS } from './classes.ts';
import type { ClickHouseConnection } from './connection.ts';
import { pairDaysSql, readPairStates } from './pair-states.ts';
import { RowBinaryReader, RowBinaryWriter } from './row-binary.ts';
import { literal } from './sql-literal.ts';
import { addView, type PairState, pairId, pairPage, visitDeltas } from './visit-deltas.ts';

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

const NO_KEY = '\0\0\0\0\0\0\0\0';

/**
 * The first 8 bytes of an event key (latin1, one character per byte), as `event_key` stores
 * them (a UInt64, big-endian); 0 means "no id", so a key whose bytes are all 0 is stored as 1.
 */
export function eventKeyBytes(eventKey: string): string {
  const bytes = eventKey.length >= 8 ? eventKey.slice(0, 8) : eventKey.padEnd(8, '\0');
  return bytes === NO_KEY ? '\0\0\0\0\0\0\0\u0001' : bytes;
}

/**
 * The `pair_days` rows of the pairs in the external table `pairs` (hi, lo, page). The primary
 * key is searched with the set of their visitor_hi, and the rows read are kept by a hash of the
 * whole pair: on 18.16 a tuple `(visitor_hi, visitor_lo, page) IN pairs` cost ClickHouse twice
 * the CPU (bench/analytics/clickhouse-pair-lookup.ts). A pair of the same visitor_hi with the
 * same hash only adds a row no one asked for, which visitDeltas never reads.
 */
export function pairLookupCondition(projectId: string): string {
  return `project = ${literal(projectId)} AND visitor_hi IN (SELECT hi FROM pairs)
    AND cityHash64(visitor_hi, visitor_lo, page) IN (SELECT cityHash64(hi, lo, page) FROM pairs)`;
}

/** The lock a project's appends hold from their lookups to the end of their insert. */
export function appendLockName(database: string, projectId: string): string {
  return `clickhouse appends ${database} ${projectId}`;
}

/**
 * Appends views: requests arriving together are grouped (up to `MAX_GROUP_VIEWS` views); their event keys are checked against
 * `event_keys` and their visitors' earlier visit days read from `pair_days` (two queries at
 * once); then the new views, the pair_days rows and the count deltas (visit-deltas.ts) go in one
 * RowBinary insert into `appends` (values never pass through SQL text), which materialized
 * views split into the tables. Groups run one after another, so within this process the first
 * event with a key wins and every later one is a duplicate, and each group sees the pair days of
 * the one before. Across processes, a group holds its projects' locks in the main database from
 * its lookups to the end of its insert (ClickHouse has no transaction to make them one), so a
 * group of another process sees all of this one's rows or none began. A resolved append means
 * the insert returned (see docs/analytics-engines.md for what ClickHouse guarantees then).
 */
export class Appender {
  private queue: Pending[] = [];
  private running = false;
  /**
   * The rows of the group being written, in a buffer kept from group to group (groups run one
   * at a time): growing a new one to megabytes for every group cost its copies and their pages.
   */
  private out = new RowBinaryWriter();

  private readonly connection: ClickHouseConnection;
  private readonly locks: Locks;

  constructor(connection: ClickHouseConnection, locks: Locks) {
    this.connection = connection;
    this.locks = locks;
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
        const group = takeGroup(this.queue, MAX_GROUP_VIEWS);
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

  private write(group: Pending[]): Promise<AppendResult[]> {
    const names = group.map((p) => appendLockName(this.connection.database, p.projectId));
    return this.locks.holding(names, (lost) => this.writeHolding(group, lost));
  }

  private async writeHolding(group: Pending[], lost: AbortSignal): Promise<AppendResult[]> {
    const keyed = group.map(({ events }) => events.map(keyedOf));
    const [stored, known] = await Promise.all([
      this.storedKeys(group, keyed),
      this.knownVisits(group, keyed),
    ]);
    const out = this.out;
    out.reset();
    let rows = 0;
    const results: AppendResult[] = [];
    const added = new Map<string, Map<string, PairState>>();
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
        const cls = classIndex(category, purpose, e.verified);
        if (cls < 0) continue;
        const quarter = Math.floor((e.timestamp - day * DAY_MS) / QUARTER_MS);
        addView(stateOf(visits, pairId(visitor, path)), day, cls, quarter);
        addView(stateOf(visits, visitor), day, cls, quarter);
      }
      results.push({ accepted, duplicates });
    }
    for (const [project, visits] of added) {
      const deltas = visitDeltas(known.get(project) ?? new Map(), visits);
      for (const r of deltas.pairDays) writePairDay(out, project, r);
      for (const c of deltas.counts) writeCountDelta(out, project, c);
      rows += deltas.pairDays.length + deltas.counts.length;
    }
    // Another node may hold the projects' locks now and have read the same state: insert
    // nothing, and let the requests fail and be retried.
    lost.throwIfAborted();
    if (rows > 0) {
      try {
        await this.connection.insertBinary(`${this.connection.db}.appends (${APPENDS_COLUMNS})`, out.bytes());
      } catch (error) {
        // An answer that came before the whole body was sent: its bytes may still be on their
        // way to the socket, so the next group writes into a buffer of its own.
        this.out = new RowBinaryWriter();
        throw error;
      }
    }
    return results;
  }

  /** Every stored visit day (its classes and their spans) of the group's (page, visitor) pairs, per project. */
  private async knownVisits(
    group: Pending[],
    keyed: Keyed[][],
  ): Promise<Map<string, Map<string, PairState>>> {
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
    const known = new Map<string, Map<string, PairState>>();
    for (const [projectId, pairs] of wanted) {
      const list = new RowBinaryWriter();
      for (const id of pairs) {
        list.uint64FromLatin1(id, 0);
        list.uint64FromLatin1(id, 8);
        list.string(pairPage(id));
      }
      const answer = new RowBinaryReader(
        await this.connection.queryBinary(pairDaysSql(this.connection.db, pairLookupCondition(projectId)), {
          name: 'pairs',
          structure: 'hi UInt64, lo UInt64, page String',
          rows: list.bytes(),
        }),
      );
      known.set(projectId, readPairStates(answer));
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

function stateOf(visits: Map<string, PairState>, pair: string): PairState {
  let state = visits.get(pair);
  if (!state) {
    state = new Map();
    visits.set(pair, state);
  }
  return state;
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
