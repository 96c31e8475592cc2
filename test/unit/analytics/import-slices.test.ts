import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHead, sliceBoundary } from '../../../src/cli/commands/analytics-import-slices.ts';
import { LineParser } from '../../../src/domain/analytics/log-formats.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'dw-import-slices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const view = (second: number, note = '') =>
  JSON.stringify({
    timestamp: new Date(Date.UTC(2025, 2, 1) + second * 1000).toISOString(),
    client_ip: '10.0.0.1',
    path: `/page${note}`,
    status: 200,
  });

describe('where a parallel import cuts a file', () => {
  it('reads the format from the first line the import reads, past a line over 64 KiB', async () => {
    const file = path.join(dir, 'head.log');
    writeFileSync(file, `${'x'.repeat(200_000)}\n${view(0)}\n`);
    expect(await readHead(file, undefined, null)).toEqual({ format: 'json', fields: null });
  });

  it('cuts after a long line it lands in, where the second changes, at the exact byte', async () => {
    const file = path.join(dir, 'slices.log');
    // Multi-byte characters before the cut: offsets are bytes, not characters.
    const before = [view(0, 'é€😀'), view(0, 'é€😀')];
    const long = 'y'.repeat(300_000);
    const after = [view(1, '€'), view(1, '€'), view(2), view(3)];
    const text = `${before.join('\n')}\n${long}\n${after.join('\n')}\n`;
    writeFileSync(file, text);
    const handle = await open(file, 'r');
    try {
      const size = Buffer.byteLength(text);
      const parser = () => new LineParser('json', null);
      // Landed inside the long line: its tail has no second, then two lines of second 1.
      const cut = await sliceBoundary(
        handle,
        Buffer.byteLength(`${before.join('\n')}\n`) + 1000,
        size,
        parser(),
      );
      expect(cut).toBe(Buffer.byteLength(`${before.join('\n')}\n${long}\n${after.slice(0, 2).join('\n')}\n`));
      expect(text.slice(text.length - (size - cut))).toBe(`${after.slice(2).join('\n')}\n`);
      // Landed in the first line: the long line is passed over, unparsed, and second 0 ends.
      expect(await sliceBoundary(handle, 5, size, parser())).toBe(
        Buffer.byteLength(`${before.join('\n')}\n${long}\n`),
      );
      // Past the last change: no cut.
      expect(await sliceBoundary(handle, size - 3, size, parser())).toBe(size);
    } finally {
      await handle.close();
    }
  });
});
