import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { testBackend } from '../../helpers/storage.ts';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** The README's "Docs analytics in one minute" block: the events it sends, the query, the answer it shows. */
function sample(): { events: unknown; query: string; answer: unknown } {
  const block = /## Docs analytics in one minute\n\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
  const events = /-d '(\{"events":[\s\S]*?\})'/.exec(block)?.[1];
  const query = /\/visitors\?([^"]+)"/.exec(block)?.[1];
  const answer = /^# (\{"totals".*)$/m.exec(block)?.[1];
  if (events === undefined || query === undefined || answer === undefined) {
    throw new Error('the README no longer has the events, the visitors query and its answer in that block');
  }
  return { events: JSON.parse(events), query, answer: JSON.parse(answer) };
}

describe(`the README's analytics sample (${testBackend})`, () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('shows the answer the server gives to its own events and query', async () => {
    const { events, query, answer } = sample();
    t = await startTestApp();
    const sent = await t.request('POST', `/v1/analytics/${t.project.id}/events`, { body: events });
    expect(await sent.json()).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    const visitors = await t.request('GET', `/v1/analytics/${t.project.id}/visitors?${query}`);
    expect(visitors.status).toBe(200);
    expect(await visitors.json()).toEqual(answer);
  });
});
