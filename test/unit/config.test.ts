import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
    });
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_SALT_ROTATION: 'hourly' })).toEqual([
      'DOCWRIGHT_ANALYTICS_SALT_ROTATION must be one of daily, weekly, monthly, never (got "hourly")',
    ]);
    expect(loadConfig({}, '/srv').analytics.collectRateLimitPerMinute).toBe(120);
    expect(loadConfig({}, '/srv').analytics.saltRetentionDays).toBe(7);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS: '0' })).toEqual([
      'DOCWRIGHT_ANALYTICS_SALT_RETENTION_DAYS must be at least 1 (got 0)',
    ]);
    expect(problemsOf({ DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT: '-1' })).toEqual([
      'DOCWRIGHT_ANALYTICS_COLLECT_RATE_LIMIT must be at least 0 (got -1)',
    ]);
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
