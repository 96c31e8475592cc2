import type { TestProject } from 'vitest/node';
import { startClickHouse } from './clickhouse-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    clickhouseUrl: string;
  }
}

/**
 * One ClickHouse server for the unit tests' analytics stores (each test location makes a
 * database of its own), unless DOCWRIGHT_TEST_CLICKHOUSE_URL names a running one. A missing
 * binary fails the run with how to install it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.DOCWRIGHT_TEST_CLICKHOUSE_URL;
  if (given) {
    project.provide('clickhouseUrl', given);
    return async () => {};
  }
  const server = await startClickHouse();
  project.provide('clickhouseUrl', server.url);
  return () => server.stop();
}
