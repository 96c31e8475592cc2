import type SqliteDatabase from 'better-sqlite3';
import { wordsOf } from './record.ts';

/**
 * Visitor keys per row of `visitor_blocks`: 4 KiB blobs. A transaction that numbers a new
 * visitor rewrites the last block, so a block is kept to about one database page.
 */
export const BLOCK_KEYS = 256;
export const KEY_BYTES = 16;

/** Above this share of slots in use the table grows (linear probes stay short below it). */
const MAX_LOAD = 0.8;
/** The share of slots in use the table is sized, or grown, to. */
const TARGET_LOAD = 0.65;
const TWO_32 = 2 ** 32;

/**
 * Periods (their first day, which starts every key: see VisitorIdentity) more than this many
 * days older than the newest stored one are loaded only when a key of such a period comes up.
 */
const RECENT_PERIOD_DAYS = 8;

/**
 * 16-byte visitor keys ↔ dense visitor numbers. Keys are stored in number order, 256 to a
 * row of `visitor_blocks` (visitor n is at block ⌊(n − 1) / 256⌋), so loading a million keys
 * is 3,907 blob reads rather than a million rows, and a new visitor is an append to the last
 * block. The key → number lookup is an in-memory open-addressing table of any size (20 bytes
 * a slot, 65–80 % full: 25–31 bytes a key; a power-of-two table took 27–53), filled on the
 * first write and topped up from the blocks other processes appended to at the start of each
 * write transaction.
 *
 * Under salt rotation every period brings new keys, so the table starts with only the keys of
 * recent periods and of period 0 (rotation `never`, caller-given ids): `visitor_block_periods`
 * records which periods each block holds. Live traffic stays in recent periods; the first key
 * of an older one loads every remaining block before it is looked up, so numbering stays exact.
 */
export class VisitorDictionary {
  private table = new Uint32Array(0);
  /** Slots in `table`; 0 until the first `sync` loads it. */
  private capacity = 0;
  private size = 0;
  /** The highest number handed out, by any process, as of the last `sync`. */
  private known = 0;
  /** Keys of periods from this first day on (and of period 0) are all in `table`; 0: every key. */
  private recentFrom = 0;
  /** The last block when `loadRecent` ran: the older blocks it skipped are all before it. */
  private recentBlock = 0;
  /** The last block's keys, as stored plus this transaction's appends. */
  private tail = Buffer.alloc(BLOCK_KEYS * KEY_BYTES);
  private tailBlock = 0;
  private tailDirty = false;
  private dirty = false;
  private readonly blocksFrom;
  private readonly blockData;
  private readonly upsertBlock;
  private readonly upsertPeriods;
  private readonly lastBlock;
  private readonly newestPeriod;
  private readonly recentBlocks;
  private readonly olderBlocks;
  private readonly recentBlockCount;
  private readonly olderBlockCount;
  private readonly loadAll: boolean;

  constructor(sqlite: SqliteDatabase.Database, load: 'recent' | 'all') {
    this.loadAll = load === 'all';
    this.blocksFrom = sqlite
      .prepare('select block, data from visitor_blocks where block >= ? order by block')
      .raw();
    this.blockData = sqlite.prepare('select data from visitor_blocks where block = ?').pluck();
    this.upsertBlock = sqlite.prepare(
      'insert into visitor_blocks (block, data) values (?, ?) on conflict (block) do update set data = excluded.data',
    );
    this.upsertPeriods = sqlite.prepare(
      `insert into visitor_block_periods (block, first_period, last_period, fixed) values (?, ?, ?, ?)
       on conflict (block) do update set first_period = excluded.first_period,
         last_period = excluded.last_period, fixed = excluded.fixed`,
    );
    this.lastBlock = sqlite
      .prepare('select block, length(data) from visitor_blocks order by block desc limit 1')
      .raw();
    this.newestPeriod = sqlite.prepare('select max(last_period) from visitor_block_periods').pluck();
    // Each condition serves a select and the count that sizes the table for it, so they agree.
    // Recent: the last block on, blocks with a recent period or period-0 keys, undescribed blocks.
    const recent = `block >= ?
      or block in (select block from visitor_block_periods where last_period >= ? or fixed > 0)
      or block not in (select block from visitor_block_periods)`;
    // Older: exactly the blocks before that last block which `recent` leaves out.
    const older =
      'block in (select block from visitor_block_periods where last_period < ? and fixed = 0) and block < ?';
    this.recentBlocks = sqlite
      .prepare(`select block, data from visitor_blocks where ${recent} order by block`)
      .raw();
    this.olderBlocks = sqlite
      .prepare(`select block, data from visitor_blocks where ${older} order by block`)
      .raw();
    this.recentBlockCount = sqlite.prepare(`select count(*) from visitor_blocks where ${recent}`).pluck();
    this.olderBlockCount = sqlite.prepare(`select count(*) from visitor_blocks where ${older}`).pluck();
  }

  isLoaded(): boolean {
    return this.capacity !== 0;
  }

  /** How many keys are in memory. */
  loadedKeys(): number {
    return this.size;
  }

  /** Start of a write transaction: take in the visitors other processes numbered since. */
  sync(): void {
    if (this.capacity === 0) {
      this.loadRecent();
      return;
    }
    this.loadBlocks(
      this.blocksFrom.iterate(Math.floor(this.known / BLOCK_KEYS)) as Iterable<[number, Buffer]>,
    );
  }

  /**
   * The stored keys of visitor numbers (committed ones: read from their blocks, not from the
   * in-memory table, so a store that never wrote can answer).
   */
  keysOf(nos: Iterable<number>): Map<number, Buffer> {
    const keys = new Map<number, Buffer>();
    const blocks = new Map<number, Buffer | undefined>();
    for (const no of nos) {
      if (keys.has(no)) continue;
      const block = Math.floor((no - 1) / BLOCK_KEYS);
      if (!blocks.has(block)) blocks.set(block, this.blockData.get(block) as Buffer | undefined);
      const data = blocks.get(block);
      const at = ((no - 1) % BLOCK_KEYS) * KEY_BYTES;
      if (data === undefined || data.length < at + KEY_BYTES)
        throw new Error(`No stored key for visitor ${no}`);
      keys.set(no, Buffer.from(data.subarray(at, at + KEY_BYTES)));
    }
    return keys;
  }

  /** The number for `key`, assigned if new. Call inside a write transaction, after `sync`. */
  idFor(key: Buffer): number {
    return this.idForAt(key, 0);
  }

  /** `idFor` of the key at bytes [at, at + 16) of `keys` (a batch's keys, side by side). */
  idForAt(keys: Buffer, at: number): number {
    const period = keys.readUInt32BE(at);
    if (period !== 0 && period < this.recentFrom) this.loadOlder();
    const k0 = keys.readUInt32LE(at);
    const k1 = keys.readUInt32LE(at + 4);
    const k2 = keys.readUInt32LE(at + 8);
    const k3 = keys.readUInt32LE(at + 12);
    let no = this.find(k0, k1, k2, k3);
    if (no === 0) {
      no = this.known + 1;
      const block = Math.floor((no - 1) / BLOCK_KEYS);
      if (block !== this.tailBlock) {
        this.store();
        this.tailBlock = block;
        this.tail.fill(0);
      }
      keys.copy(this.tail, ((no - 1) % BLOCK_KEYS) * KEY_BYTES, at, at + KEY_BYTES);
      this.tailDirty = true;
      this.put(k0, k1, k2, k3, no);
      this.known = no;
      this.dirty = true;
    }
    return no;
  }

  /** End of a write transaction: store the appended keys, and which periods their block holds. */
  store(): void {
    if (!this.tailDirty) return;
    const count = this.known - this.tailBlock * BLOCK_KEYS;
    const keys = Math.min(BLOCK_KEYS, Math.max(0, count));
    this.upsertBlock.run(this.tailBlock, this.tail.subarray(0, keys * KEY_BYTES));
    const { first, last, fixed } = blockPeriods(this.tail, keys);
    this.upsertPeriods.run(this.tailBlock, first, last, fixed);
    this.tailDirty = false;
  }

  /** First load: the blocks holding recent periods or period 0, and the last block. */
  private loadRecent(): void {
    const [block, bytes] = (this.lastBlock.get() as [number, number] | undefined) ?? [0, 0];
    const newest = (this.newestPeriod.get() as number | null) ?? 0;
    // recentFrom 0: every period counts as recent, so the query below reads every block.
    this.recentFrom = this.loadAll ? 0 : Math.max(1, newest - RECENT_PERIOD_DAYS);
    this.recentBlock = block;
    this.resize(tableCapacity((this.recentBlockCount.get(block, this.recentFrom) as number) * BLOCK_KEYS));
    this.loadBlocks(this.recentBlocks.iterate(block, this.recentFrom) as Iterable<[number, Buffer]>);
    // Blocks skipped above hold only older periods: `loadOlder` reads them when needed.
    this.known = Math.max(this.known, block * BLOCK_KEYS + bytes / KEY_BYTES);
  }

  /**
   * A key of an older period came up (a late event, a backfill): loads every block `loadRecent`
   * skipped, at once and into a table sized for them, then every key is in memory. Live traffic
   * rarely gets here; a backfill then costs what loading everything always did.
   */
  private loadOlder(): void {
    const blocks = this.olderBlockCount.get(this.recentFrom, this.recentBlock) as number;
    this.makeRoom(blocks * BLOCK_KEYS);
    const rows = this.olderBlocks.iterate(this.recentFrom, this.recentBlock) as Iterable<[number, Buffer]>;
    for (const [block, data] of rows) this.placeBlock(block, data, 0);
    this.recentFrom = 0;
  }

  /** Places a stored block's keys from its `start`th on (the table must have room). */
  private placeBlock(block: number, data: Buffer, start: number): void {
    const words = wordsOf(data);
    const first = block * BLOCK_KEYS;
    for (let i = start; i < data.length / KEY_BYTES; i++) {
      const at = i * 4;
      this.place(
        words[at] as number,
        words[at + 1] as number,
        words[at + 2] as number,
        words[at + 3] as number,
        first + i + 1,
      );
    }
  }

  /** Places the keys of blocks in number order, from `known` on for the block it falls in. */
  private loadBlocks(rows: Iterable<[number, Buffer]>): void {
    let last: Buffer | null = null;
    let lastNo = -1;
    for (const [block, data] of rows) {
      const first = block * BLOCK_KEYS;
      const count = data.length / KEY_BYTES;
      const start = Math.max(0, this.known - first);
      this.makeRoom(count - start);
      this.placeBlock(block, data, start);
      if (first + count > this.known) this.known = first + count;
      last = data;
      lastNo = block;
    }
    // The block the next number goes into, with the keys it already has.
    this.tailBlock = Math.floor(this.known / BLOCK_KEYS);
    this.tail.fill(0);
    if (last && lastNo === this.tailBlock) last.copy(this.tail, 0);
  }

  /** One more than the highest number handed out, by any process. */
  universe(): number {
    const [block, bytes] = (this.lastBlock.get() as [number, number] | undefined) ?? [0, 0];
    return Math.max(this.known, block * BLOCK_KEYS + bytes / KEY_BYTES) + 1;
  }

  commit(): void {
    this.dirty = false;
  }

  rollback(): void {
    // Numbers handed out in the failed transaction were never stored: start again from the table.
    if (!this.dirty) return;
    this.table = new Uint32Array(0);
    this.capacity = 0;
    this.size = 0;
    this.known = 0;
    this.recentFrom = 0;
    this.recentBlock = 0;
    this.tailBlock = 0;
    this.tailDirty = false;
    this.tail.fill(0);
    this.dirty = false;
  }
  /** Grows the table, if needed, so that `more` keys can be placed without growing it again. */
  private makeRoom(more: number): void {
    if (this.size + more > this.capacity * MAX_LOAD) this.resize(tableCapacity(this.size + more));
  }

  private slotOf(k1: number, k2: number): number {
    // The hash's high bits pick the slot (multiply-shift): any capacity works.
    return Math.floor(
      ((Math.imul(k1 ^ Math.imul(k2, 0x85ebca6b), 0x9e3779b1) >>> 0) * this.capacity) / TWO_32,
    );
  }

  /** The key's number, or 0. Slots are 5 words: the key's four, then its number. */
  private find(k0: number, k1: number, k2: number, k3: number): number {
    const t = this.table;
    let slot = this.slotOf(k1, k2);
    for (;;) {
      const at = slot * 5;
      const no = t[at + 4] as number;
      if (no === 0) return 0;
      if (t[at] === k0 && t[at + 1] === k1 && t[at + 2] === k2 && t[at + 3] === k3) return no;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  private put(k0: number, k1: number, k2: number, k3: number, no: number): void {
    if (this.size + 1 > this.capacity * MAX_LOAD) {
      this.resize(Math.max(tableCapacity(this.size + 1), Math.ceil(this.capacity * 1.25)));
    }
    this.place(k0, k1, k2, k3, no);
  }

  private place(k0: number, k1: number, k2: number, k3: number, no: number): void {
    const t = this.table;
    let slot = this.slotOf(k1, k2);
    for (;;) {
      const at = slot * 5;
      if (t[at + 4] === 0) {
        t[at] = k0;
        t[at + 1] = k1;
        t[at + 2] = k2;
        t[at + 3] = k3;
        t[at + 4] = no;
        this.size++;
        return;
      }
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = new Uint32Array(capacity * 5);
    this.capacity = capacity;
    this.size = 0;
    for (let at = 0; at < old.length; at += 5) {
      const no = old[at + 4] as number;
      if (no !== 0)
        this.place(
          old[at] as number,
          old[at + 1] as number,
          old[at + 2] as number,
          old[at + 3] as number,
          no,
        );
    }
  }
}

/**
 * The periods a block of keys holds: the first and last non-zero period (a key's first four
 * bytes, big-endian), -1 when there is none, and how many keys are of period 0.
 */
export function blockPeriods(data: Buffer, keys: number): { first: number; last: number; fixed: number } {
  let first = -1;
  let last = -1;
  let fixed = 0;
  for (let i = 0; i < keys; i++) {
    const period = data.readUInt32BE(i * KEY_BYTES);
    if (period === 0) fixed++;
    else {
      if (first === -1 || period < first) first = period;
      if (period > last) last = period;
    }
  }
  return { first, last, fixed };
}

/** Slots for `keys` at the target load (at least 65,536: a new file's table). */
function tableCapacity(keys: number): number {
  return Math.max(65_536, Math.ceil(keys / TARGET_LOAD));
}
