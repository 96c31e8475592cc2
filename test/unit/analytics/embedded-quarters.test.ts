import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PageReport, PreparedEvent } from '../../../src/domain/analytics/store.ts';
import type { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { openEmbeddedStore, preparedView, visitorsOver } from './embedded-views.ts';

const DAY = 86_400_000;
const QUARTER = 900_000;
const DAY0 = Date.UTC(2025, 4, 5);
// Days 0-5 are old: packed, and given their quarters when the index is loaded.
const NOW = new Date(DAY0 + 9 * DAY + 3_600_000);

function key(visitor: number): Buffer {
  const bytes = Buffer.alloc(16);
  bytes.writeUInt32BE(visitor, 12);
  return bytes;
}

/** A small deterministic generator, so every run sees the same views. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Visitors come back within a day at times of their own, on and off the quarter hours, to pages
 * they also read on other days, and to a page of the day.
 */
function viewsOf(days: readonly number[], seed: number): PreparedEvent[] {
  const next = random(seed);
  const views: PreparedEvent[] = [];
  for (const day of days) {
    for (let v = 1; v <= 120; v++) {
      if (next() < 0.35) continue;
      const category = v % 5 === 0 ? 'ai' : 'human';
      const visits = 1 + Math.floor(next() * 3);
      for (let i = 0; i < visits; i++) {
        const ms = Math.floor(next() * 96) * QUARTER + (next() < 0.5 ? 0 : Math.floor(next() * QUARTER));
        views.push(preparedView(key(v), DAY0 + day * DAY + ms, `/p${v % 4}`, category));
        // And a page of that day only: no visitor of it comes back on another day.
        if (i === 0) views.push(preparedView(key(v), DAY0 + day * DAY + ms, `/day${day}`, category));
      }
    }
  }
  return views.sort((a, b) => a.timestamp - b.timestamp);
}

/** Distinct visitors per page over [from, to), counted from the views themselves. */
function expected(views: readonly PreparedEvent[], from: number, to: number) {
  const sets = new Map<string, { human: Set<string>; ai: Set<string>; total: Set<string> }>();
  const all = { human: new Set<string>(), ai: new Set<string>(), total: new Set<string>() };
  for (const view of views) {
    if (view.timestamp < from || view.timestamp >= to) continue;
    let page = sets.get(view.path);
    if (!page) {
      page = { human: new Set(), ai: new Set(), total: new Set() };
      sets.set(view.path, page);
    }
    const visitor = view.visitorKey.toString('hex');
    for (const into of [page, all]) {
      (view.category === 'ai' ? into.ai : into.human).add(visitor);
      into.total.add(visitor);
    }
  }
  const rows = [...sets].map(([path, s]) => ({
    path,
    human: s.human.size,
    ai: s.ai.size,
    total: s.total.size,
    aiAssistant: s.ai.size,
  }));
  return {
    rows: rows.sort((a, b) => a.path.localeCompare(b.path)),
    totals: { human: all.human.size, ai: all.ai.size, total: all.total.size },
  };
}

function actual(report: PageReport) {
  return {
    rows: report.rows
      .map((r) => ({ path: r.path, human: r.human, ai: r.ai, total: r.total, aiAssistant: r.aiAssistant }))
      .sort((a, b) => a.path.localeCompare(b.path)),
    totals: { human: report.totals.human, ai: report.totals.ai, total: report.totals.total },
  };
}

/** Ranges cut on quarter hours (mid-day, both edges), each checked against the views. */
async function checkQuarterRanges(store: EmbeddedAnalyticsStore, views: readonly PreparedEvent[]) {
  let checked = 0;
  for (const [first, last] of [
    [1, 3],
    [2, 4],
    [1, 5],
  ] as const) {
    for (const q of [1, 8, 37, 48, 88, 95]) {
      const from = DAY0 + first * DAY + q * QUARTER;
      const to = DAY0 + last * DAY + ((q * 7) % 96) * QUARTER;
      expect(actual(await store.pages('prj', visitorsOver(from, to))), `${first}+${q}q`).toEqual(
        expected(views, from, to),
      );
      checked++;
    }
  }
  return checked;
}

// A range cut on a quarter hour reads its packed edge days' first and last quarter per entry.
// Those must be right when computed from the views, after a restart (read from the snapshot),
// and after a late view re-sorted a packed day's lists (the quarters move with their entries).
describe('embedded store: edge days clipped on quarter hours', () => {
  let dir: string;
  let store: EmbeddedAnalyticsStore;
  const open = () => openEmbeddedStore(path.join(dir, 'analytics.sqlite'), NOW);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-quarters-'));
    store = open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts exactly from computed quarters and from quarters read back after a restart', async () => {
    const views = viewsOf([0, 1, 2, 3, 4, 5], 7);
    for (let i = 0; i < views.length; i += 300) await store.append('prj', views.slice(i, i + 300));
    expect(await checkQuarterRanges(store, views)).toBe(18);
    await store.close();
    store = open();
    await checkQuarterRanges(store, views);
  });

  it('keeps each entry its own quarters when a late view re-sorts a packed day', async () => {
    const views = viewsOf([0, 2, 3, 4, 5], 11);
    for (let i = 0; i < views.length; i += 300) await store.append('prj', views.slice(i, i + 300));
    await checkQuarterRanges(store, views);
    // Late views on day 1 for every other visitor: their entries on days 2-5 get a new
    // previous visit and move within their packed lists.
    const late: PreparedEvent[] = [];
    for (let v = 2; v <= 120; v += 2)
      late.push(preparedView(key(v), DAY0 + DAY + v * 60_000, `/p${v % 4}`, v % 5 === 0 ? 'ai' : 'human'));
    await store.append('prj', late);
    const all = [...views, ...late];
    await checkQuarterRanges(store, all);
    await store.close();
    store = open();
    await checkQuarterRanges(store, all);
  });
});
