import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The integration tests serve the dashboard, so it is built first when stale (a hash check otherwise).
const DASHBOARD_BUILD = 'test/integration/dashboard/build.global.ts';
// The analytics store tests run on ClickHouse too: one server for the run (see the file).
const CLICKHOUSE = 'test/helpers/clickhouse.global.ts';

// Integration tests run twice, once per storage backend; each test gets its own database
// (a SQLite file or a PostgreSQL schema), see test/helpers/storage.ts.
export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one file at a time on 2 cores. Most
    // files wait on Chromium, PostgreSQL, ClickHouse, git or a child process, so at least two run
    // at once (whole suite on 2 cores: 2,649 s with one worker, 1,156 s with two; three left tests
    // starved past their timeouts). With more cores, Vitest's default stands.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], globalSetup: [CLICKHOUSE] },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/integration/**/*.test.ts'],
          env: { DOCWRIGHT_TEST_DATABASE: 'sqlite' },
          // A log import's worker threads into ClickHouse take turns through SQLite's lock file
          // (test/integration/analytics/import-workers-clickhouse.test.ts).
          globalSetup: [DASHBOARD_BUILD, CLICKHOUSE],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          env: { DOCWRIGHT_TEST_DATABASE: 'postgres' },
          // Several nodes run their analytics on ClickHouse too (test/integration/analytics/several-nodes.test.ts).
          globalSetup: [DASHBOARD_BUILD, CLICKHOUSE],
        },
      },
    ],
  },
});
