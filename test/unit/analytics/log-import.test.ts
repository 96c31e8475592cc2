import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalyticsService } from '../../../src/domain/analytics/analytics-service.ts';
import { eventKey } from '../../../src/domain/analytics/ingest.ts';
import { emptyCategories, importLog, importWarnings } from '../../../src/domain/analytics/log-import.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';

const NOW = new Date(Date.UTC(2025, 2, 10));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function line(ip: string, second: number, page = '/guide'): string {
  const s = String(second).padStart(2, '0');
  return `${ip} - - [01/Mar/2025:10:00:${s} +0000] "GET ${page} HTTP/1.1" 200 512 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"`;
}

async function* chunks(lines: string[]): AsyncIterable<string> {
  // Split mid-line too, as a stream does.
  const text = `${lines.join('\n')}\n`;
  for (let i = 0; i < text.length; i += 997) yield text.slice(i, i + 997);
}

describe('importLog', () => {
  it('numbers identical lines within a second, so a re-import adds nothing and more copies add only themselves', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dw-log-import-'));
    dirs.push(dir);
    const store = new EmbeddedAnalyticsStore({
      file: path.join(dir, 'analytics.sqlite'),
      synchronous: 'normal',
      checkpointIntervalMs: 0,
      clock: () => NOW,
    });
    const analytics = new AnalyticsService({
      store,
      salts: store,
      settings: store,
      clock: () => NOW,
      saltRotation: 'daily',
    });
    try {
      // A busy second (more identical lines than the short list holds), a quiet one, other pages.
      const lines = [
        ...Array.from({ length: 40 }, () => line('203.0.113.1', 1)),
        ...Array.from({ length: 45 }, (_, i) => line(`203.0.113.${10 + i}`, 1)),
        ...Array.from({ length: 3 }, () => line('203.0.113.1', 2)),
        line('203.0.113.2', 2, '/api'),
      ];
      const first = await importLog({ analytics, projectId: 'p', input: chunks(lines) });
      expect(first).toMatchObject({ lines: 89, imported: 89, duplicates: 0, skipped: 0 });
      const again = await importLog({ analytics, projectId: 'p', input: chunks(lines) });
      expect(again).toMatchObject({ imported: 0, duplicates: 89 });
      const more = await importLog({
        analytics,
        projectId: 'p',
        // After the busy second's list became a map.
        input: chunks([
          ...lines.slice(0, 85),
          line('203.0.113.1', 1),
          line('203.0.113.41', 1), // the line that turned the list into a map
          ...lines.slice(85),
        ]),
      });
      expect(more).toMatchObject({ imported: 2, duplicates: 89 });
      const views = await analytics.pages('p', 'views', {
        range: { from: null, to: null },
        limit: 10,
        offset: 0,
      });
      expect(views.totals.total).toBe(91);
    } finally {
      await store.close();
    }
  });
});

describe('importWarnings', () => {
  const summary = (categories: Partial<ReturnType<typeof emptyCategories>>, withAccept = 0) => ({
    lines: 10,
    bytes: 1_000,
    imported: 10,
    duplicates: 0,
    skipped: 0,
    format: 'combined' as const,
    reasons: [],
    categories: { ...emptyCategories(), ...categories },
    withoutUserAgent: 0,
    withAccept,
  });

  it('says when no AI agent is named at all', () => {
    expect(importWarnings(summary({ human: 10 }))).toEqual([
      expect.stringMatching(
        /^No AI views: no AI agent is named in the user agents and no view fetched Markdown .*Accept header/,
      ),
    ]);
  });

  it('says that AI crawlers were found but count apart, rather than that no AI agent is named', () => {
    const [warning, ...others] = importWarnings(summary({ human: 8, ai_crawler: 2 }, 10));
    expect(others).toEqual([]);
    expect(warning).toMatch(/^No AI assistant views: only AI crawlers are named \(2 views: /);
    expect(warning).toContain('countAiCrawlersAsAi');
    expect(warning).not.toContain('no AI agent is named');
    expect(importWarnings(summary({ human: 9, ai_crawler: 1 }))[0]).toContain('(1 view: ');
  });

  it('says nothing when there are people and AI assistants', () => {
    expect(importWarnings(summary({ human: 5, ai: 1, ai_crawler: 4 }))).toEqual([]);
  });
});

describe('eventKey', () => {
  it('is the SHA-256 of (project, id), so keys stored by earlier versions still match', () => {
    const expected = createHash('sha256').update('prj_1\u0000log:0:a line é').digest();
    expect(Buffer.from(eventKey('prj_1', 'log:0:a line é'), 'latin1')).toEqual(expected);
  });
});
