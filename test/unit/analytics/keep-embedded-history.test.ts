import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { keepEmbeddedHistory } from '../../../src/app/keep-embedded-history.ts';
import type { AnalyticsBackendConfig } from '../../../src/config/analytics-backend.ts';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { MemoryAnalyticsMetadata } from '../../helpers/analytics-backends.ts';

const NOW = new Date('2025-03-14T12:00:00Z');
const implicit: AnalyticsBackendConfig = {
  kind: 'postgres',
  url: 'postgres://db/docs',
  schema: null,
  implicit: true,
};

describe('an older installation on PostgreSQL with its views in the embedded file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const warnings = () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    return { logger, lines };
  };

  async function embeddedFile(views: number): Promise<string> {
    const dir = mkdtempSync(path.join(tmpdir(), 'dw-history-'));
    dirs.push(dir);
    const file = path.join(dir, 'analytics.sqlite');
    const store = new EmbeddedAnalyticsStore({ file, synchronous: 'normal', clock: () => NOW });
    const metadata = new MemoryAnalyticsMetadata();
    const service = new AnalyticsService({ store, salts: metadata, settings: metadata, clock: () => NOW });
    const events = Array.from({ length: views }, (_, i) => ({
      timestamp: '2025-03-14T10:00:00Z',
      path: `/p${i}`,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      ip: '203.0.113.7',
    }));
    if (views > 0) expect((await service.ingest('prj', events)).accepted).toBe(views);
    await service.close();
    return file;
  }

  it('stays on the embedded engine when no DOCWRIGHT_ANALYTICS_URL chose, and says how to move on', async () => {
    const file = await embeddedFile(3);
    const { logger, lines } = warnings();
    expect(keepEmbeddedHistory(implicit, file, ['prj'], logger)).toEqual({ kind: 'embedded', file });
    expect(lines.join('')).toContain('DOCWRIGHT_ANALYTICS_URL');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ views: 3 });
  });

  it('takes PostgreSQL when the file holds no views, or when PostgreSQL was chosen explicitly', async () => {
    const empty = await embeddedFile(0);
    const full = await embeddedFile(2);
    const { logger, lines } = warnings();
    expect(keepEmbeddedHistory(implicit, empty, ['prj'], logger)).toBe(implicit);
    expect(
      keepEmbeddedHistory(implicit, path.join(path.dirname(empty), 'missing.sqlite'), ['prj'], logger),
    ).toBe(implicit);
    const explicit: AnalyticsBackendConfig = { kind: 'postgres', url: 'postgres://db/docs', schema: null };
    expect(keepEmbeddedHistory(explicit, full, ['prj'], logger)).toBe(explicit);
    expect(lines).toEqual([]);
  });

  it("takes PostgreSQL when the file's views are another installation's (a SQLite install that shared the data directory)", async () => {
    const file = await embeddedFile(3);
    const { logger, lines } = warnings();
    // A fresh PostgreSQL database has no projects yet; a later start has its own, not the file's.
    expect(keepEmbeddedHistory(implicit, file, [], logger)).toBe(implicit);
    expect(keepEmbeddedHistory(implicit, file, ['prj_of_the_postgresql_install'], logger)).toBe(implicit);
    expect(lines).toEqual([]);
  });
});
