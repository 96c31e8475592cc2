import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CATEGORIES, PURPOSES } from '../../../src/domain/analytics/categories.ts';
import { encodePreparedBatch } from '../../../src/domain/analytics/prepared-batch.ts';
import type { PreparedEvent } from '../../../src/domain/analytics/store.ts';
import { openEmbeddedStore, visitorsOver } from './embedded-views.ts';

const DAY = 86_400_000;
const START = Date.UTC(2025, 2, 1);
const dir = mkdtempSync(path.join(tmpdir(), 'docwright-append-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Few distinct values, so batches repeat strings, visitors and event keys (duplicates), and
// keys shorter than the 8 bytes a record keeps (and empty: no key) sit beside full ones.
const key = fc.constantFrom('', 'a', 'short', 'exactly8', '0123456789abcdef0123456789abcdef', 'x'.repeat(32));
const event: fc.Arbitrary<PreparedEvent> = fc.record({
  eventKey: fc.option(fc.oneof(key, fc.string({ unit: 'binary-ascii', minLength: 8, maxLength: 32 })), {
    nil: null,
  }),
  timestamp: fc.integer({ min: START, max: START + 4 * DAY - 1 }),
  path: fc.constantFrom('/', '/guide', '/api', '/guide/install'),
  visitorKey: fc.integer({ min: 1, max: 12 }).map((n) => Buffer.alloc(16, n)),
  category: fc.constantFrom(...CATEGORIES),
  purpose: fc.option(fc.constantFrom(...PURPOSES), { nil: null }),
  agent: fc.constantFrom('Chrome', 'GPTBot', 'ChatGPT-User'),
  classifierVersion: fc.integer({ min: 1, max: 3 }),
  userAgent: fc.constantFrom('Mozilla/5.0', 'GPTBot/1.2', ''),
  flags: fc.integer({ min: 0, max: 7 }),
  status: fc.option(fc.constantFrom(200, 304), { nil: null }),
  referrer: fc.option(fc.constantFrom('https://example.com/', 'https://docs.example.com/a'), { nil: null }),
  verified: fc.boolean(),
});

describe('the embedded store takes a preparation thread’s columns', () => {
  it('stores them as it stores the same events appended as objects', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(event, { maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        async (batches) => {
          run++;
          const now = new Date(START + 10 * DAY);
          const objects = openEmbeddedStore(path.join(dir, `objects-${run}.sqlite`), now);
          const columns = openEmbeddedStore(path.join(dir, `columns-${run}.sqlite`), now);
          try {
            for (const events of batches) {
              const { batch, transfer } = encodePreparedBatch(events, []);
              // Moved through a real structured clone, as the thread posts it.
              const moved = structuredClone(batch, { transfer });
              // Two projects in one commit, as concurrent requests share one.
              const [a, b] = await Promise.all([
                objects.append('prj_a', events),
                objects.append('prj_b', events),
              ]);
              const [c, d] = await Promise.all([
                columns.appendColumns('prj_a', moved),
                columns.appendColumns('prj_b', moved),
              ]);
              expect(c).toEqual(a);
              expect(d).toEqual(b);
            }
            for (const project of ['prj_a', 'prj_b']) {
              const scanned = await Promise.all([objects, columns].map((s) => s.scan(project, null, 10_000)));
              expect(scanned[1]).toEqual(scanned[0]);
              const range = visitorsOver(START, START + 4 * DAY);
              const reports = await Promise.all([objects, columns].map((s) => s.pages(project, range)));
              expect(reports[1]).toEqual(reports[0]);
            }
          } finally {
            await Promise.all([objects.close(), columns.close()]);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
