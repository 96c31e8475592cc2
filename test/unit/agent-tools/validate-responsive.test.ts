import { describe, expect, it } from 'vitest';
import { validateDocumentation } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

// A site whose first parse takes a second or more here: 600 pages of about 6 KB.
const PAGES = 600;
const paragraph =
  'Each request is checked, logged and retried when the network fails; see [retries](/page-1) and <Tooltip tip="x">limits</Tooltip>. ';

describe('a large site parsing', () => {
  it('lets the rest of the process run: no pause longer than a fraction of the parse', async () => {
    const site = await tempDir('docwright-responsive-');
    const files: Record<string, string> = {
      'docs.json': JSON.stringify({ navigation: { groups: [{ group: 'All', pages: ['page-0'] }] } }),
    };
    for (let i = 0; i < PAGES; i++) {
      files[`page-${i}.mdx`] = `---\ntitle: Page ${i}\n---\n\n<Note>\n  ${paragraph.repeat(45)}\n</Note>\n`;
    }
    await writeTree(site, files);

    const started = performance.now();
    let last = started;
    let longestPause = 0;
    const ticks = setInterval(() => {
      const now = performance.now();
      longestPause = Math.max(longestPause, now - last);
      last = now;
    }, 5);
    try {
      expect(await validateDocumentation(site)).toEqual([]);
    } finally {
      clearInterval(ticks);
    }
    const ended = performance.now();
    // A pause that ran to the end is not seen by the interval, cleared before it could fire.
    longestPause = Math.max(longestPause, ended - last);
    const took = ended - started;
    // Parsed in one go, the pause was the whole parse; in slices, each is a few tens of ms.
    expect(took).toBeGreaterThan(500);
    expect(longestPause).toBeLessThan(took / 4);
  }, 60_000);
});
