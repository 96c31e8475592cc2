import { isDeepStrictEqual } from 'node:util';
import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './executor.ts';

/**
 * Kysely builds and compiles a query on every call, which costs more than running a small
 * indexed lookup. For hot queries whose SQL never changes, compile once per database and
 * run the compiled query with each call's values. The query is still written once, in
 * Kysely, for both dialects.
 *
 * The builder must use each parameter exactly once, in order, and no other values; this is
 * checked when the query is first compiled.
 */
export function compiledOnce<P extends unknown[], R>(
  name: string,
  build: (db: Executor, ...params: P) => Compilable<R>,
): (db: Executor, ...params: P) => Promise<R[]> {
  const compiledFor = new WeakMap<Executor, CompiledQuery<R>>();
  return async (db, ...params) => {
    let compiled = compiledFor.get(db);
    if (!compiled) {
      compiled = build(db, ...params).compile();
      if (!isDeepStrictEqual([...compiled.parameters], params)) {
        throw new Error(`Query ${name} does not use its parameters exactly once and in order`);
      }
      compiledFor.set(db, compiled);
    }
    const result = await db.executeQuery<R>({ ...compiled, parameters: params });
    return result.rows;
  };
}
