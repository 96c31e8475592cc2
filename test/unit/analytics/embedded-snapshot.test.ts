import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PreparedEvent } from '../../../src/domain/analytics/store.ts';
import type { EmbeddedAnalyticsStore } from '../../../src/integrations/analytics/embedded/embedded-store.ts';
import { openEmbeddedStore, preparedView, visitorsOver } from './embedded-views.ts';

const DAY = 86_400_000;
const DAY1 = Date.UTC(2025, 2, 3);
// Days 0-1 are old (packed when checkpointed), day 8 is yesterday's (kept open).
const NOW = new Date(DAY1 + 9 * DAY + 3_600_000);

function view(visitor: number, day: number, page: string, category: 'human' | 'ai'): PreparedEvent {
  const key = Buffer.alloc(16);
  key.writeUInt32BE(visitor, 12);
  return preparedView(key, DAY1 + day * DAY + (visitor % 86_000) * 1000, page, category);
}

const range = (from: number, to: number) => visitorsOver(DAY1 + from * DAY, DAY1 + to * DAY);

// Day snapshots copy short lists by a loop and long ones (512 entries and more) through views:
// both must read back as they were written, packed days and open ones.
describe('embedded store: day snapshots read back exactly', () => {
  let dir: string;
  let store: EmbeddedAnalyticsStore;
  const open = () => openEmbeddedStore(path.join(dir, 'analytics.sqlite'), NOW);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dw-snapshot-'));
    store = open();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the same answers after a restart, for long and short lists', async () => {
    const views: PreparedEvent[] = [];
    for (const day of [0, 1, 8]) {
      // A long list (1,500 or 700 visitors, odd and even counts) and short ones beside it.
      const readers = day === 1 ? 701 : 1500;
      for (let v = 1; v <= readers; v++) views.push(view(v, day, '/long', v % 7 === 0 ? 'ai' : 'human'));
      for (let p = 0; p < 20; p++) {
        for (let v = 1; v <= 3 + p; v++)
          views.push(view(v * 31 + day, day, `/short/${p}`, v % 2 ? 'human' : 'ai'));
      }
    }
    views.sort((a, b) => a.timestamp - b.timestamp);
    for (let i = 0; i < views.length; i += 500) await store.append('prj', views.slice(i, i + 500));
    const queries = [range(0, 1), range(0, 2), range(1, 2), range(0, 9), range(1, 9), range(8, 9)];
    const before = [];
    for (const query of queries) before.push(await store.pages('prj', query));
    expect(before[1]?.rows.find((r) => r.path === '/long')).toMatchObject({
      human: 1286,
      ai: 214,
      total: 1500,
    });

    await store.close();
    store = open();
    for (const [i, query] of queries.entries()) expect(await store.pages('prj', query)).toEqual(before[i]);
  });
});
