import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES } from '../../../src/domain/analytics/log-lines.ts';

type Event = string | { tooLong: true };

/** What the splitter reports for `chunks`, with a limit of `maxBytes`. */
function split(chunks: Iterable<string>, maxBytes?: number): Event[] {
  const events: Event[] = [];
  const splitter = new LineSplitter(
    (line) => events.push(line),
    () => events.push({ tooLong: true }),
    maxBytes,
  );
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return events;
}

/** The same, the simple way: the whole text at once. */
function reference(text: string, maxBytes: number): Event[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((raw) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    return Buffer.byteLength(line) > maxBytes ? { tooLong: true as const } : line;
  });
}

// Characters of 1 to 4 UTF-8 bytes, carriage returns and newlines.
const text = fc
  .array(fc.constantFrom('a', 'b', 'é', '€', '😀', '\r', '\n', '\n', '\r\n'), { maxLength: 120 })
  .map((chars) => chars.join(''));

/** `text` cut into chunks at code point boundaries, as a UTF-8 decoding stream cuts it. */
const chunked = (value: string) =>
  fc.array(fc.nat(200), { maxLength: 12 }).map((cuts) => {
    const points = Array.from(value);
    const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
    return [0, ...at, points.length]
      .slice(1)
      .map((end, i, ends) => points.slice(i === 0 ? 0 : ends[i - 1], end).join(''));
  });

describe('LineSplitter', () => {
  it('gives the lines of any text however it is cut, each line over the limit reported once instead', () => {
    fc.assert(
      fc.property(
        text.chain((t) => fc.tuple(fc.constant(t), chunked(t))),
        fc.integer({ min: 1, max: 24 }),
        ([whole, chunks], maxBytes) => {
          expect(chunks.join('')).toBe(whole);
          expect(split(chunks, maxBytes)).toEqual(reference(whole, maxBytes));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps a line of exactly 64 KiB in bytes and refuses one byte more, whatever the characters', () => {
    const euro = '€'.repeat(MAX_LINE_BYTES / 4); // 3 bytes each: 48 KiB
    const exact = `${euro}${'a'.repeat(MAX_LINE_BYTES / 4)}`;
    expect(split([`${exact}\r\n`, `${exact}é\n`, 'ok'])).toEqual([exact, { tooLong: true }, 'ok']);
  });

  it('drops a long line as it comes: megabytes without a newline, between good lines, in small pieces', () => {
    const chunk = 'x'.repeat(64 * 1024);
    function* pieces() {
      yield 'first\nsecond';
      for (let i = 0; i < 200; i++) yield chunk; // 12.5 MiB of one line
      yield 'end of it\r\nthird\n';
      for (let i = 0; i < 200; i++) yield chunk; // and one the file ends in
    }
    expect(split(pieces())).toEqual(['first', { tooLong: true }, 'third', { tooLong: true }]);
  });
});
