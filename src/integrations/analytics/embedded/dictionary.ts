import type SqliteDatabase from 'better-sqlite3';

/**
 * Value ↔ dense integer, stored in a table of its own and cached in memory. Numbers never
 * change once assigned, so a cache entry is never stale; entries added inside a transaction
 * are dropped again if it rolls back.
 */
export class Dictionary {
  private readonly byValue = new Map<string, number>();
  private readonly names: Array<string | undefined> = [];
  private staged: Array<[string, number]> = [];
  private readonly keepNames: boolean;
  private readonly cacheLimit: number;
  private readonly select;
  private readonly insert;
  private readonly selectName;

  constructor(
    sqlite: SqliteDatabase.Database,
    table: string,
    keepNames: boolean,
    cacheLimit = Number.POSITIVE_INFINITY,
  ) {
    this.keepNames = keepNames;
    this.cacheLimit = cacheLimit;
    this.select = sqlite.prepare(`select no from ${table} where value = ?`).pluck();
    this.insert = sqlite.prepare(`insert into ${table} (value) values (?)`);
    this.selectName = sqlite.prepare(`select value from ${table} where no = ?`).pluck();
  }

  /** The number for `value`, assigned if new. Call inside a write transaction. */
  idFor(value: string): number {
    const cached = this.byValue.get(value);
    if (cached !== undefined) return cached;
    let no = this.select.get(value) as number | undefined;
    if (no === undefined) no = Number(this.insert.run(value).lastInsertRowid);
    if (this.byValue.size >= this.cacheLimit) this.byValue.clear();
    this.byValue.set(value, no);
    this.staged.push([value, no]);
    if (this.keepNames) this.names[no] = value;
    return no;
  }

  /** The number for `value` if it has one; never writes. */
  find(value: string): number | undefined {
    return this.byValue.get(value) ?? (this.select.get(value) as number | undefined);
  }

  nameOf(no: number): string {
    let name = this.names[no];
    if (name === undefined) {
      name = (this.selectName.get(no) as string | undefined) ?? `#${no}`;
      this.names[no] = name;
    }
    return name;
  }

  commit(): void {
    this.staged = [];
  }

  rollback(): void {
    // The numbers were never committed and may be handed to other values later.
    for (const [key, no] of this.staged) {
      this.byValue.delete(key);
      this.names[no] = undefined;
    }
    this.staged = [];
  }
}
