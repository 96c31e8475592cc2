import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AnalyticsService,
  type AnalyticsServiceOptions,
} from '../../../src/domain/analytics/analytics-service.ts';
import { type Category, purposeFromCode } from '../../../src/domain/analytics/categories.ts';
import {
  type Counts,
  EVENT_FLAGS,
  type PreparedEvent,
  type PurposeSplit,
} from '../../../src/domain/analytics/store.ts';
import { AnalyticsDatabase } from '../../../src/integrations/analytics/embedded/analytics-database.ts';
import { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { ViewCursor } from '../../../src/integrations/analytics/embedded/record.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const CHATGPT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const all = { range: { from: null, to: null }, limit: 50, offset: 0 };
/** Full Counts: human, ai, total and the purpose split (zero unless given). */
const counts = (human: number, ai: number, total: number, purposes: Partial<PurposeSplit> = {}): Counts => ({
  human,
  ai,
  total,
  aiAssistant: 0,
  aiSearch: 0,
  aiTraining: 0,
  aiOther: 0,
  ...purposes,
});

/** Each stored view's agent, purpose, fetch flags and verified bit, in storage order (read from the file). */
type StoredView = { agent: string; purpose: string | null; fetch: number; verified: boolean };
function storedViews(file: string): StoredView[] {
  const db = new AnalyticsDatabase({ file });
  try {
    const views: StoredView[] = [];
    for (const chunk of db.chunks.projectPage(db.projectNo('prj'), 0, 1000)) {
      for (const v = new ViewCursor(chunk); v.next(); ) {
        views.push({
          agent: db.agents.nameOf(v.agent),
          purpose: purposeFromCode(v.purposeCode),
          fetch: v.fetchFlags,
          verified: v.verified,
        });
      }
    }
    return views;
  } finally {
    db.close();
  }
}

describe('embedded analytics store', () => {
  let dir: string;
  let file: string;
  const open: EmbeddedAnalyticsStore[] = [];
  const service = (options: Partial<AnalyticsServiceOptions> = {}) => {
    const store = new EmbeddedAnalyticsStore({
      file,
      synchronous: 'normal',
      checkpointIntervalMs: 0,
      clock: () => NOW,
    });
    open.push(store);
    return new AnalyticsService({ store, salts: store, settings: store, clock: () => NOW, ...options });
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-analytics-'));
    file = path.join(dir, 'analytics.sqlite');
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees events another process appended, before and after its own', async () => {
    const server = service();
    const importer = service();
    const view = (n: number, ua = CHROME) => ({
      timestamp: `2025-03-0${n}T10:00:00Z`,
      path: `/p${n}`,
      userAgent: ua,
      visitorId: `v${n}`,
    });
    await server.ingest('prj', [view(1)]);
    expect((await server.pages('prj', 'visitors', all)).totals.total).toBe(1); // index now built
    await importer.ingest('prj', [view(2), view(3, CHATGPT)]);
    // Not contiguous with the server's tail: it must read the importer's rows from the log.
    await server.ingest('prj', [view(4)]);
    const report = await server.pages('prj', 'visitors', all);
    expect(report.totals).toEqual(counts(3, 1, 4, { aiAssistant: 1 }));
    expect(report.rows.map((r) => r.path).sort()).toEqual(['/p1', '/p2', '/p3', '/p4']);
  });

  it('deletes a project: its exports answer empty, here and in another process, and others keep theirs', async () => {
    const server = service();
    const cli = service();
    const view = (day: number, id: string) => ({
      timestamp: `2025-03-0${day}T10:00:00Z`,
      path: `/p${day}`,
      userAgent: CHROME,
      visitorId: 'v',
      id,
    });
    await server.ingest('doomed', [view(1, 'a'), view(2, 'b')]);
    await server.ingest('kept', [view(1, 'a'), view(3, 'c')]);
    await server.updateSettings('doomed', { allowedOrigins: ['https://docs.example.com'] });
    expect((await server.pages('doomed', 'views', all)).totals.total).toBe(2); // index built
    await cli.deleteProject('doomed');
    for (const s of [server, cli]) {
      expect(await s.pages('doomed', 'views', all)).toEqual({
        totals: counts(0, 0, 0),
        rows: [],
        hasMore: false,
      });
      expect(await s.timeSeries('doomed', { range: all.range, interval: 'day' })).toEqual([]);
      expect((await s.breakdown('doomed', { range: all.range })).agents).toEqual([]);
      expect((await s.settings('doomed')).allowedOrigins).toEqual([]);
      expect((await s.pages('kept', 'views', all)).totals.total).toBe(2);
    }
    // Appends after the deletion are seen by the other process (sequence numbers never go back).
    await cli.ingest('kept', [view(4, 'd')]);
    expect((await server.pages('kept', 'views', all)).totals.total).toBe(3);
    await server.close();
    const reopened = service();
    expect((await reopened.pages('doomed', 'views', all)).totals.total).toBe(0);
    expect((await reopened.pages('kept', 'views', all)).totals.total).toBe(3);
  });

  it('keeps projects apart and counts a visitor seen as human and as ai once in total', async () => {
    const s = service();
    await s.ingest('a', [
      { timestamp: '2025-03-01T10:00:00Z', path: '/x', userAgent: CHROME, visitorId: 'same' },
      { timestamp: '2025-03-01T11:00:00Z', path: '/x.md', userAgent: CHATGPT, visitorId: 'same' },
    ]);
    await s.ingest('b', [
      { timestamp: '2025-03-01T10:00:00Z', path: '/x', userAgent: CHROME, visitorId: 'same' },
    ]);
    expect(await s.pages('a', 'visitors', all)).toEqual({
      totals: counts(1, 1, 1, { aiAssistant: 1 }),
      rows: [{ path: '/x', ...counts(1, 1, 1, { aiAssistant: 1 }) }],
      hasMore: false,
    });
    expect((await s.pages('a', 'views', all)).totals).toEqual(counts(1, 1, 2, { aiAssistant: 1 }));
    expect((await s.pages('b', 'visitors', all)).totals).toEqual(counts(1, 0, 1));
    expect((await s.pages('nobody', 'visitors', all)).rows).toEqual([]);
  });

  it('rejects bad events one by one with their index and stores the rest', async () => {
    const s = service();
    const ok = { timestamp: '2025-03-01T10:00:00Z', path: '/ok', userAgent: CHROME, ip: '203.0.113.9' };
    const result = await s.ingest('prj', [
      ok,
      'nope',
      { ...ok, timestamp: '2025-03-01 10:00' },
      { ...ok, timestamp: '2025-02-30T10:00:00Z' },
      { ...ok, timestamp: '2025-03-20T10:00:00Z' },
      { ...ok, path: 'relative' },
      { ...ok, userAgent: undefined },
      { ...ok, ip: '999.1.1.1' },
      { ...ok, ip: undefined },
      { ...ok, status: 404 },
      { ...ok, id: '' },
      { ...ok, status: 304, id: 42 },
    ]);
    expect(result.accepted).toBe(2);
    expect(result.rejected.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(result.rejected[0]?.reason).toMatch(/JSON object/);
    expect(result.rejected[1]?.reason).toMatch(/timestamp/);
    expect(result.rejected[3]?.reason).toMatch(/future/);
    expect(result.rejected[7]?.reason).toMatch(/ip or visitorId/);
    expect(result.rejected[8]?.reason).toMatch(/status 404/);
  });

  it('answers a time series and a breakdown by category and agent', async () => {
    const s = service();
    await s.ingest('prj', [
      { timestamp: '2025-03-01T10:15:00Z', path: '/a', userAgent: CHROME, visitorId: 'h1' },
      { timestamp: '2025-03-01T10:45:00Z', path: '/b', userAgent: CHROME, visitorId: 'h1' },
      { timestamp: '2025-03-02T08:00:00Z', path: '/a', userAgent: CHATGPT, visitorId: 'h1' },
      { timestamp: '2025-03-02T08:00:00Z', path: '/a', userAgent: 'curl/8.5.0', visitorId: 'c' },
      { timestamp: '2025-03-02T09:00:00Z', path: '/a.md', userAgent: 'curl/8.5.0', visitorId: 'c' },
    ]);
    const days = await s.timeSeries('prj', { range: { from: null, to: null }, interval: 'day' });
    expect(days.map((p) => [new Date(p.start).toISOString(), p.visitors, p.views.total])).toEqual([
      ['2025-03-01T00:00:00.000Z', counts(1, 0, 1), 2],
      ['2025-03-02T00:00:00.000Z', counts(0, 2, 2, { aiAssistant: 2 }), 2],
    ]);
    const hours = await s.timeSeries('prj', {
      range: { from: Date.parse('2025-03-01T10:30:00Z'), to: Date.parse('2025-03-01T12:00:00Z') },
      interval: 'hour',
    });
    expect(hours.map((p) => [new Date(p.start).toISOString(), p.views.human])).toEqual([
      ['2025-03-01T10:30:00.000Z', 1],
      ['2025-03-01T11:00:00.000Z', 0],
    ]);
    const breakdown = await s.breakdown('prj', { range: { from: null, to: null } });
    expect(breakdown.categories).toEqual([
      { category: 'human', visitors: 1, views: 2 },
      { category: 'ai', visitors: 2, views: 2 },
      { category: 'ai_crawler', visitors: 0, views: 0 },
      { category: 'search', visitors: 0, views: 0 },
      { category: 'bot', visitors: 1, views: 1 },
    ]);
    expect(breakdown.agents).toEqual([
      { agent: 'Browser', category: 'human', visitors: 1, views: 2 },
      { agent: 'ChatGPT', category: 'ai', visitors: 1, views: 1 },
      { agent: 'curl', category: 'ai', visitors: 1, views: 1 },
      { agent: 'curl', category: 'bot', visitors: 1, views: 1 },
    ]);
  });

  it('reclassifies views an older agent list classified, and other processes see the new categories', async () => {
    const writer = service();
    const reader = service(); // a server with its index already built
    const old = (
      n: number,
      userAgent: string,
      category: Category,
      agent: string,
      flags = 0,
      verified = false,
    ): PreparedEvent => ({
      eventKey: null,
      timestamp: Date.parse(`2025-03-0${n}T10:00:00Z`),
      path: '/guide',
      visitorKey: Buffer.alloc(16, n),
      category,
      purpose: null,
      agent,
      classifierVersion: 0, // an agent list older than any release
      userAgent,
      flags,
      status: 200,
      referrer: null,
      verified,
    });
    await writer.store.append('prj', [
      // Verified at ingest (its IP was OpenAI's): reclassifying keeps that.
      old(1, 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', 'human', 'Browser', 0, true),
      old(2, CHROME, 'human', 'Browser'),
      old(3, 'curl/8.5.0', 'bot', 'curl', EVENT_FLAGS.markdownPath),
    ]);
    await writer.ingest('prj', [
      { timestamp: '2025-03-04T10:00:00Z', path: '/guide', userAgent: CHROME, visitorId: 'now' },
    ]);
    expect((await reader.pages('prj', 'visitors', all)).totals).toEqual(counts(3, 0, 3));

    expect(await writer.reclassify('prj')).toEqual({ examined: 3, changed: 2 });

    const expected = counts(2, 1, 3, { aiAssistant: 1, aiTraining: 1 });
    expect((await reader.pages('prj', 'visitors', all)).totals).toEqual(expected);
    expect((await writer.pages('prj', 'visitors', all)).totals).toEqual(expected);
    const agents = (await reader.breakdown('prj', { range: { from: null, to: null } })).agents;
    expect(agents).toContainEqual({ agent: 'GPTBot', category: 'ai_crawler', visitors: 1, views: 1 });
    expect(agents).toContainEqual({ agent: 'curl', category: 'ai', visitors: 1, views: 1 });
    // The purpose is stored with each view, and rewritten with its category.
    expect(storedViews(file)).toEqual([
      { agent: 'GPTBot', purpose: 'training', fetch: 0, verified: true },
      { agent: 'Browser', purpose: null, fetch: 0, verified: false },
      { agent: 'curl', purpose: 'assistant', fetch: EVENT_FLAGS.markdownPath, verified: false },
      { agent: 'Browser', purpose: null, fetch: 0, verified: false },
    ]);
    // Counted verified only, the verified crawler stays a crawler and the unverified curl is a bot.
    const verifiedOnly = (await reader.breakdown('prj', { range: all.range, verifiedOnly: true })).agents;
    expect(verifiedOnly).toContainEqual({ agent: 'GPTBot', category: 'ai_crawler', visitors: 1, views: 1 });
    expect(verifiedOnly).toContainEqual({ agent: 'curl', category: 'bot', visitors: 1, views: 1 });
    // The snapshots written after reclassifying hold the new categories.
    await writer.store.close();
    await reader.store.close();
    const reopened = service();
    expect((await reopened.pages('prj', 'visitors', all)).totals).toEqual(expected);
    expect(await reopened.reclassify('prj')).toEqual({ examined: 0, changed: 0 });
  });

  it('upgrades a schema 5 file: its views read as not verified, its old snapshots are dropped, not found unreadable', async () => {
    const writer = service();
    await writer.ingest('prj', [
      { timestamp: '2025-03-01T10:00:00Z', path: '/a', userAgent: CHROME, visitorId: 'h' },
      { timestamp: '2025-03-02T10:00:00Z', path: '/a', userAgent: CHATGPT, ip: '203.0.113.1' },
    ]);
    const before = await writer.pages('prj', 'visitors', all);
    await writer.store.close(); // writes the snapshots
    // Back to what a Docwright of schema 5 left: snapshots of format 2 (the second word).
    const sqlite = new SqliteDatabase(file);
    const snapshots = sqlite.prepare('select project, day, data from day_snapshots').all() as Array<{
      project: number;
      day: number;
      data: Buffer;
    }>;
    expect(snapshots.length).toBe(2);
    for (const { project, day, data } of snapshots) {
      data.writeUInt32LE(2, 4);
      sqlite
        .prepare('update day_snapshots set data = ? where project = ? and day = ?')
        .run(data, project, day);
    }
    sqlite.pragma('user_version = 5');
    sqlite.close();

    const warnings: unknown[] = [];
    const logger = {
      warn: (...args: unknown[]) => warnings.push(args),
      error: () => {},
    } as unknown as Logger;
    const store = new EmbeddedAnalyticsStore({ file, checkpointIntervalMs: 0, clock: () => NOW, logger });
    open.push(store);
    const reopened = new AnalyticsService({ store, salts: store, settings: store, clock: () => NOW });
    expect(await reopened.pages('prj', 'visitors', all)).toEqual(before);
    expect(warnings).toEqual([]);
    const scanned = await store.scan('prj', null, 10);
    expect(scanned.views.map((v) => v.verified)).toEqual([false, false]);
  });

  it('deletes salts past their retention, so visitors of an old period can no longer be linked', async () => {
    const s = service({ saltRotation: 'daily', saltRetentionDays: 2 });
    const view = (day: string) => ({
      timestamp: `${day}T10:00:00Z`,
      path: '/a',
      userAgent: CHROME,
      ip: '203.0.113.9',
    });
    const named = { timestamp: '2025-03-01T11:00:00Z', path: '/a', userAgent: CHROME, visitorId: 'u1' };
    // NOW is 2025-03-10T12:00Z: 03-01 ended long ago; 03-09 ends 03-10, kept until 03-12.
    await s.ingest('prj', [view('2025-03-01'), view('2025-03-09'), named]);
    const day = (d: string) => ({ ...all, range: { from: Date.parse(d), to: Date.parse(d) + 86_400_000 } });
    expect((await s.pages('prj', 'visitors', day('2025-03-01'))).totals.total).toBe(2);

    expect(await s.pruneSalts()).toBe(1);
    expect(await s.pruneSalts()).toBe(0);
    // The same client again: a new salt for 03-01 makes it a new visitor there; 03-09 still knows it.
    await s.ingest('prj', [view('2025-03-01'), view('2025-03-09'), named]);
    expect((await s.pages('prj', 'visitors', day('2025-03-01'))).totals.total).toBe(3);
    expect((await s.pages('prj', 'visitors', day('2025-03-09'))).totals.total).toBe(1);
  });
});
