import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventKeyWords, keyWordAt } from '../../../src/integrations/analytics/embedded/event-keys.ts';

// The words stored records keep for an event key: they must never change, or a retried batch
// would no longer find the keys stored before an upgrade.
describe('event key words', () => {
  it('are the little-endian words of the first 8 bytes, zeros past a short key, (0, 0) as (1, 0)', () => {
    expect(eventKeyWords('\x01\x02\x03\x04\x05\x06\x07\x08\x09')).toEqual([0x04030201, 0x08070605]);
    expect(eventKeyWords('\xff\xfe\xfd\xfc\xfb')).toEqual([0xfcfdfeff, 0x000000fb]);
    expect(eventKeyWords('\x00\x00\x00\x00\x00\x00\x00\x00\x07')).toEqual([1, 0]);
    expect(eventKeyWords('')).toEqual([1, 0]);
  });

  it('read from a batch of concatenated keys, match each key read alone', () => {
    const latin1 = fc.string({
      unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
      maxLength: 12,
    });
    fc.assert(
      fc.property(fc.array(latin1, { minLength: 1, maxLength: 8 }), (keys) => {
        const batch = keys.join('');
        let at = 0;
        for (const key of keys) {
          const lo = keyWordAt(batch, at, key.length, 0);
          const hi = keyWordAt(batch, at, key.length, 4);
          const alone = eventKeyWords(key);
          expect(lo === 0 && hi === 0 ? [1, 0] : [lo, hi]).toEqual(alone);
          // The reference: the key's bytes, zero-padded to 8, as two little-endian words.
          const bytes = Buffer.alloc(8);
          Buffer.from(key.slice(0, 8), 'latin1').copy(bytes);
          const expected = [bytes.readUInt32LE(0), bytes.readUInt32LE(4)];
          expect(alone).toEqual(expected[0] === 0 && expected[1] === 0 ? [1, 0] : expected);
          at += key.length;
        }
      }),
    );
  });
});
