import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeAnalyticsBackend } from '../../src/config/analytics-backend.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('configuration', () => {
  it('has working defaults: SQLite in ./.docwright on 127.0.0.1:8080', () => {
    const config = loadConfig({}, '/srv');
    expect(config.dataDir).toBe('/srv/.docwright');
    expect(config.database).toEqual({ kind: 'sqlite', file: '/srv/.docwright/docwright.sqlite' });
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
    expect(config.http.rateLimitPerWindow).toBe(100);
    expect(config.http.rateLimitWindowSeconds).toBe(3600);
    expect(config.model).toBeNull();
  });

  it('reads PostgreSQL, public URL and numbers from the environment', () => {
    const config = loadConfig(
      {
        DATABASE_URL: 'postgres://u@db:5432/docs',
        DOCWRIGHT_DATABASE_SCHEMA: 'docwright',
        DOCWRIGHT_PUBLIC_URL: 'https://docs.example.com/',
        DOCWRIGHT_PORT: '9000',
        DOCWRIGHT_HOST: '0.0.0.0',
        DOCWRIGHT_WORKER_CONCURRENCY: '8',
        DOCWRIGHT_MODEL: 'openai-compatible:qwen3-coder',
      },
      '/srv',
    );
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/docs',
      schema: 'docwright',
    });
    expect(config.publicUrl).toBe('https://docs.example.com');
    expect(config.port).toBe(9000);
    expect(config.worker.concurrency).toBe(8);
    expect(config.model).toBe('openai-compatible:qwen3-coder');
  });

  it('names every bad value at once, with what was given', () => {
    const problems = problemsOf({
      DOCWRIGHT_PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      DOCWRIGHT_PUBLIC_URL: 'ftp://x',
      DOCWRIGHT_LOG_LEVEL: 'loud',
      DOCWRIGHT_RATE_LIMIT: '-1',
      DOCWRIGHT_LEASE_SECONDS: 'abc',
      DOCWRIGHT_MODEL: 'claude',
      DOCWRIGHT_DATABASE_SCHEMA: 'Robert; drop',
    });
    expect(problems).toEqual([
      'DOCWRIGHT_PORT must be a whole number (got "eighty")',
      'DOCWRIGHT_PUBLIC_URL must be an http:// or https:// URL (got "ftp://x")',
      'DATABASE_URL must start with postgres:// or postgresql:// (leave it unset for SQLite)',
      'DOCWRIGHT_DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, _)',
      'DOCWRIGHT_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'DOCWRIGHT_MODEL must look like provider:model-id (got "claude")',
      'DOCWRIGHT_RATE_LIMIT must be at least 0 (got -1)',
      'DOCWRIGHT_LEASE_SECONDS must be a number (got "abc")',
    ]);
    expect(problemsOf({ DOCWRIGHT_PORT: '70000' })).toEqual([
      'DOCWRIGHT_PORT must be at least 0 and at most 65535 (got 70000)',
    ]);
  });

  it('reads the analytics settings', () => {
    const config = loadConfig(
      {
        DOCWRIGHT_ANALYTICS_SALT_ROTATION: 'never',
        DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS: '30',
        DOCWRIGHT_TRUSTED_PROXIES: '10.0.0.0/8, loopback',
        DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT: '30',
        DOCWRIGHT_ANALYTICS_DURABILITY: 'normal',
        DOCWRIGHT_ANALYTICS_FILE: 'stats.sqlite',
        DOCWRIGHT_ANALYTICS_PREPARATION_THREADS: '3',
        DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: '8',
      },
      '/srv',
    );
    expect(config.analytics).toEqual({
      saltRotation: 'never',
      saltRetentionDays: 30,
      maxBatch: 1000,
      trustedProxies: ['10.0.0.0/8', 'loopback'],
      rateLimitPerWindow: 1000,
      collectRateLimitPerMinute: 30,
      durability: 'normal',
      file: '/srv/stats.sqlite',
      preparationThreads: 3,
      ingestConcurrency: 8,
      backend: { kind: 'embedded', file: '/srv/stats.sqlite' },
    });
    expect(loadConfig({}, '/srv').analytics.ingestConcurrency).toBe(32);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY: '0' })).toEqual([
      expect.stringContaining('DOCWRIGHT_ANALYTICS_INGEST_CONCURRENCY'),
    ]);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_SALT_ROTATION: 'hourly' })).toEqual([
      'DOCWRIGHT_ANALYTICS_SALT_ROTATION must be one of daily, weekly, monthly, never (got "hourly")',
    ]);
    expect(loadConfig({}, '/srv').analytics.collectRateLimitPerMinute).toBe(120);
    expect(loadConfig({}, '/srv').analytics.saltRetentionDays).toBe(7);
    // One core is left to the thread serving HTTP, at most four threads; none on one core.
    const threads = loadConfig({}, '/srv').analytics.preparationThreads;
    const cores = availableParallelism();
    expect(threads).toBe(cores >= 2 ? Math.min(4, cores - 1) : 0);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_PREPARATION_THREADS: '-1' })).toEqual([
      'DOCWRIGHT_ANALYTICS_PREPARATION_THREADS must be at least 0 and at most 64 (got -1)',
    ]);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS: '0' })).toEqual([
      'DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS must be at least 1 (got 0)',
    ]);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT: '-1' })).toEqual([
      'DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT must be at least 0 (got -1)',
    ]);
  });

  it('reads the bounds on slow clients; the whole request leaves room for its headers and body', () => {
    expect(loadConfig({}, '/srv').http).toMatchObject({
      headersTimeoutSeconds: 15,
      bodyTimeoutSeconds: 30,
      requestTimeoutSeconds: 60,
      unauthenticatedBodiesPerAddress: 32,
      ingestStallSeconds: 5,
    });
    const set = loadConfig(
      {
        DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '2',
        DOCWRIGHT_BODY_TIMEOUT_SECONDS: '2.5',
        DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '5',
        DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS: '4',
        DOCWRIGHT_ANALYTICS_INGEST_STALL_SECONDS: '1',
      },
      '/srv',
    ).http;
    expect(set).toMatchObject({
      headersTimeoutSeconds: 2,
      bodyTimeoutSeconds: 2.5,
      requestTimeoutSeconds: 5,
      unauthenticatedBodiesPerAddress: 4,
      ingestStallSeconds: 1,
    });
    // Unset, the whole request's bound grows with a longer body bound.
    expect(loadConfig({ DOCWRIGHT_BODY_TIMEOUT_SECONDS: '120' }, '/srv').http.requestTimeoutSeconds).toBe(
      135,
    );
    expect(
      problemsOf({ DOCWRIGHT_BODY_TIMEOUT_SECONDS: '120', DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '60' }),
    ).toEqual([
      'DOCWRIGHT_REQUEST_TIMEOUT_SECONDS must be at least DOCWRIGHT_HEADERS_TIMEOUT_SECONDS + DOCWRIGHT_BODY_TIMEOUT_SECONDS (135; got 60)',
    ]);
    expect(problemsOf({ DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '0' })).toEqual([
      'DOCWRIGHT_HEADERS_TIMEOUT_SECONDS must be at least 0.5 and at most 3600 (got 0)',
    ]);
    expect(problemsOf({ DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS: '0' })).toEqual([
      'DOCWRIGHT_UNAUTHENTICATED_BODIES_PER_ADDRESS must be at least 1 and at most 100000 (got 0)',
    ]);
  });

  describe('the analytics backend (DOCWRIGHT_ANALYTICS_URL)', () => {
    const backendOf = (env: Record<string, string>) => loadConfig(env, '/srv').analytics.backend;
    const PG = { DATABASE_URL: 'postgres://u:pw@db:5432/docs', DOCWRIGHT_DATABASE_SCHEMA: 'docwright' };

    it('defaults to the main database when that is PostgreSQL, else to the embedded engine', () => {
      expect(backendOf({})).toEqual({ kind: 'embedded', file: '/srv/.docwright/analytics.sqlite' });
      expect(backendOf(PG)).toEqual({
        kind: 'postgres',
        url: 'postgres://u:pw@db:5432/docs',
        schema: 'docwright',
        implicit: true,
      });
      expect(
        backendOf({ ...PG, DOCWRIGHT_ANALYTICS_URL: 'embedded', DOCWRIGHT_ANALYTICS_FILE: 'a.sqlite' }),
      ).toEqual({
        kind: 'embedded',
        file: '/srv/a.sqlite',
      });
      expect(backendOf({ ...PG, DOCWRIGHT_ANALYTICS_URL: ' Embedded ' }).kind).toBe('embedded');
    });

    it('takes another PostgreSQL database, in the configured schema', () => {
      expect(backendOf({ DOCWRIGHT_ANALYTICS_URL: 'postgresql://a@stats/analytics' })).toEqual({
        kind: 'postgres',
        url: 'postgresql://a@stats/analytics',
        schema: null,
      });
      expect(backendOf({ ...PG, DOCWRIGHT_ANALYTICS_URL: 'postgres://a@stats/analytics' })).toEqual({
        kind: 'postgres',
        url: 'postgres://a@stats/analytics',
        schema: 'docwright',
      });
    });

    it('takes ClickHouse as clickhouse:// (HTTP, port 8123 by default) or http(s)://', () => {
      expect(
        backendOf({ DOCWRIGHT_ANALYTICS_URL: 'clickhouse://reader:s%40cret@ch.internal:8123/docs' }),
      ).toEqual({
        kind: 'clickhouse',
        url: 'http://ch.internal:8123',
        database: 'docs',
        username: 'reader',
        password: 's@cret',
      });
      expect(backendOf({ DOCWRIGHT_ANALYTICS_URL: 'clickhouse://ch' })).toEqual({
        kind: 'clickhouse',
        url: 'http://ch:8123',
        database: 'default',
        username: 'default',
        password: '',
      });
      expect(backendOf({ DOCWRIGHT_ANALYTICS_URL: 'https://u:p@ch.example.com:8443/analytics/' })).toEqual({
        kind: 'clickhouse',
        url: 'https://ch.example.com:8443',
        database: 'analytics',
        username: 'u',
        password: 'p',
      });
      expect(backendOf({ DOCWRIGHT_ANALYTICS_URL: 'http://ch.example.com/' })).toMatchObject({
        url: 'http://ch.example.com',
        database: 'default',
      });
    });

    it('is described for the start log without credentials', () => {
      const described = [
        'embedded',
        'postgres://u:hunter2@db:5432/docs',
        'clickhouse://reader:hunter2@ch.internal:8123/docs',
      ].map((value) => describeAnalyticsBackend(backendOf({ DOCWRIGHT_ANALYTICS_URL: value })));
      expect(described).toEqual([
        'embedded (/srv/.docwright/analytics.sqlite)',
        'PostgreSQL (db:5432/docs)',
        'ClickHouse (http://ch.internal:8123, database docs, user reader)',
      ]);
      expect(describeAnalyticsBackend(backendOf(PG))).toBe('PostgreSQL (db:5432/docs, schema docwright)');
    });

    it('refuses other values with a message that names the setting and never shows the password', () => {
      const bad = {
        'mysql://root:hunter2@db/stats':
          'DOCWRIGHT_ANALYTICS_URL must be embedded, postgres://…, clickhouse://user:password@host:8123/database or http(s)://user:password@host:8123/database (got "mysql://root:[redacted]@db/stats")',
        'clickhouse://u:hunter2@ch:8123/two/names':
          'DOCWRIGHT_ANALYTICS_URL: the ClickHouse database must be one name of letters, digits and _ (got "clickhouse://u:[redacted]@ch:8123/two/names")',
        'clickhouse://u:hunter2@ch:8123/db?secure=1':
          'DOCWRIGHT_ANALYTICS_URL takes no query string or fragment (got "clickhouse://u:[redacted]@ch:8123/db?secure=1")',
        'clickhouse://u:hunter2%zz@ch/db':
          'DOCWRIGHT_ANALYTICS_URL: the user name or password is not validly %-escaped (got "clickhouse://u:[redacted]@ch/db")',
        'clickhouse:///db': 'DOCWRIGHT_ANALYTICS_URL needs a ClickHouse host (got "clickhouse:///db")',
        'ch.example.com':
          'DOCWRIGHT_ANALYTICS_URL must be embedded, postgres://…, clickhouse://user:password@host:8123/database or http(s)://user:password@host:8123/database (got "ch.example.com")',
        'clickhouse//u:hunter2@ch':
          'DOCWRIGHT_ANALYTICS_URL must be embedded, postgres://…, clickhouse://user:password@host:8123/database or http(s)://user:password@host:8123/database (got "clickhouse//u:[redacted]@ch")',
      };
      for (const [value, message] of Object.entries(bad)) {
        const problems = problemsOf({ DOCWRIGHT_ANALYTICS_URL: value });
        expect(problems).toEqual([message]);
        expect(problems.join('\n')).not.toContain('hunter2');
      }
    });
  });

  it('reads an optional JSON config file, with the environment taking precedence', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dw-config-'));
    const file = path.join(dir, 'docwright.json');
    writeFileSync(file, JSON.stringify({ DOCWRIGHT_PORT: 9100, DOCWRIGHT_RATE_LIMIT: 5 }));
    const config = loadConfig({ DOCWRIGHT_CONFIG: file, DOCWRIGHT_RATE_LIMIT: '7' }, dir);
    expect(config.port).toBe(9100);
    expect(config.http.rateLimitPerWindow).toBe(7);

    writeFileSync(file, JSON.stringify({ DOCWRIGHT_PROT: 1 }));
    expect(problemsOf({ DOCWRIGHT_CONFIG: file })).toEqual([
      `DOCWRIGHT_CONFIG: unknown setting "DOCWRIGHT_PROT" in ${file}`,
    ]);
    writeFileSync(file, '{ not json');
    expect(problemsOf({ DOCWRIGHT_CONFIG: file })[0]).toMatch(/cannot read .* as JSON/);
  });
});
