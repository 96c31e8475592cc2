import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PageQuery } from '../../../src/domain/analytics/store.ts';
import type { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { openEmbeddedStore, preparedView, visitorsOver } from './embedded-views.ts';

const DAY = 86_400_000;
const DAY1 = Date.UTC(2025, 2, 3);
const NOW = new Date(DAY1 + 10 * DAY);

const view = (visitor: string, day: number, hour: number, category: 'human' | 'ai') =>
  preparedView(Buffer.from(visitor.padEnd(16, '.')), DAY1 + day * DAY + hour * 3_600_000, '/guide', category);
const days = (from: number, to: number) => visitorsOver(DAY1 + from * DAY, DAY1 + to * DAY);

// The last-seen tables of a loaded index are built only when a view first needs them (after a
// query loaded the index, after a restart, after late views): returning visitors must still be
// recognised, or a range of whole days counts them twice.
describe('embedded store: previous visits of views that arrive after the index was loaded', () => {
  let dir: string;
  let store: EmbeddedAnalyticsStore;
  const open = () => openEmbeddedStore(path.join(dir, 'analytics.sqlite'), NOW);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-last-seen-'));
    store = open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const row = async (query: PageQuery) => {
    const { rows } = await store.pages('prj', query);
    const { path: _, ...counts } = rows[0] ?? { path: '' };
    return counts;
  };

  it('counts a visitor coming back after a query, a restart and a late view once', async () => {
    await store.append('prj', [view('a', 0, 9, 'human'), view('b', 0, 10, 'human'), view('d', 0, 11, 'ai')]);
    await store.append('prj', [view('a', 1, 9, 'human'), view('d', 1, 9, 'ai')]);
    // The query loads the index (without tables); the views after it need them.
    expect(await row(days(0, 2))).toMatchObject({ human: 2, ai: 1, total: 3, aiAssistant: 1 });
    await store.append('prj', [view('a', 2, 9, 'human'), view('c', 2, 10, 'human'), view('d', 2, 9, 'ai')]);
    expect(await row(days(0, 3))).toMatchObject({ human: 3, ai: 1, total: 4, aiAssistant: 1 });
    expect(await row(days(1, 3))).toMatchObject({ human: 2, ai: 1, total: 3, aiAssistant: 1 });
    expect(await row(days(2, 3))).toMatchObject({ human: 2, ai: 1, total: 3, aiAssistant: 1 });

    // A restart: the index is loaded from its snapshots, then views come again.
    await store.close();
    store = open();
    expect(await row(days(0, 3))).toMatchObject({ human: 3, ai: 1, total: 4 });
    await store.append('prj', [view('b', 3, 9, 'human'), view('c', 3, 9, 'ai'), view('d', 3, 9, 'ai')]);
    expect(await row(days(0, 4))).toMatchObject({ human: 3, ai: 2, total: 4, aiAssistant: 2 });
    expect(await row(days(3, 4))).toMatchObject({ human: 1, ai: 2, total: 3, aiAssistant: 2 });

    // A late view (day 1) after the tables exist, then a view in time order again.
    await store.append('prj', [view('e', 1, 12, 'human')]);
    await store.append('prj', [view('e', 4, 9, 'human'), view('a', 4, 9, 'human')]);
    expect(await row(days(0, 5))).toMatchObject({ human: 4, ai: 2, total: 5, aiAssistant: 2 });
    expect(await row(days(1, 5))).toMatchObject({ human: 4, ai: 2, total: 5 });
    expect(await row(days(4, 5))).toMatchObject({ human: 2, ai: 0, total: 2 });
  });
});
