import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, PURPOSES } from '../../../src/domain/analytics/categories.ts';
import { decodePreparedBatch, encodePreparedBatch } from '../../../src/domain/analytics/prepared-batch.ts';
import type { PreparedEvent } from '../../../src/domain/analytics/store.ts';

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const event: fc.Arbitrary<PreparedEvent> = fc.record({
  eventKey: fc.option(fc.string({ unit: 'binary-ascii', minLength: 0, maxLength: 40 }), { nil: null }),
  timestamp: fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }),
  path: fc.oneof(text, fc.constantFrom('/guide', '/')),
  visitorKey: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes)),
  category: fc.constantFrom(...CATEGORIES),
  purpose: fc.option(fc.constantFrom(...PURPOSES), { nil: null }),
  agent: fc.oneof(text, fc.constantFrom('Browser', 'GPTBot')),
  classifierVersion: fc.integer({ min: 0, max: 65_535 }),
  userAgent: fc.oneof(text, fc.constantFrom('Mozilla/5.0', '')),
  flags: fc.integer({ min: 0, max: 7 }),
  status: fc.option(fc.constantFrom(200, 204, 304), { nil: null }),
  referrer: fc.option(fc.oneof(text, fc.constant('https://example.com/')), { nil: null }),
  verified: fc.boolean(),
});

describe('prepared batches between threads', () => {
  it('decode what was encoded, field for field', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 60 }),
        fc.array(fc.record({ index: fc.nat(), reason: text })),
        (events, rejected) => {
          const { batch, transfer } = encodePreparedBatch(events, rejected);
          // Through a real structured clone, the buffers moved as the worker moves them.
          const cloned = structuredClone(batch, { transfer });
          const decoded = decodePreparedBatch(cloned);
          expect(decoded.rejected).toEqual(rejected);
          expect(decoded.prepared.map((e) => ({ ...e, visitorKey: [...e.visitorKey] }))).toEqual(
            events.map((e) => ({ ...e, visitorKey: [...e.visitorKey] })),
          );
          for (const e of decoded.prepared) expect(Buffer.isBuffer(e.visitorKey)).toBe(true);
        },
      ),
    );
  });

  it('sends each distinct string once', () => {
    const base: PreparedEvent = {
      eventKey: null,
      timestamp: 1_741_000_000_000,
      path: '/guide',
      visitorKey: Buffer.alloc(16, 1),
      category: 'human',
      purpose: null,
      agent: 'Browser',
      classifierVersion: 2,
      userAgent: 'Mozilla/5.0',
      flags: 0,
      status: null,
      referrer: null,
      verified: false,
    };
    const { batch } = encodePreparedBatch(
      Array.from({ length: 500 }, () => base),
      [],
    );
    expect(batch.strings.sort()).toEqual(['/guide', 'Browser', 'Mozilla/5.0']);
  });

  it('refuses a visitor key of another length', () => {
    const odd = { visitorKey: Buffer.alloc(8) } as PreparedEvent;
    expect(() => encodePreparedBatch([odd], [])).toThrow(/16 bytes/);
  });
});
