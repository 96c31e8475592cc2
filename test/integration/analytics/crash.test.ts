import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';

const BIN = fileURLToPath(new URL('../../../bin/docwright.js', import.meta.url));
const BATCH = 50;
const BATCHES = 400;
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

interface Banner {
  baseUrl: string;
  projectId: string;
  adminKey: string | null;
}

/** `docwright serve` in a child process: a real server that can really be killed. */
async function serve(database: TestDatabase): Promise<{ child: ChildProcess; banner: Banner }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--json', '--no-worker'], {
    env: { ...process.env, ...database.env, DOCWRIGHT_PORT: '0', DOCWRIGHT_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Read the banner line without closing the pipe (the server keeps running).
  const out = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text);
    });
    child.on('exit', (code) => reject(new Error(`docwright serve exited with ${code}`)));
  });
  return { child, banner: JSON.parse(out) as Banner };
}

const batch = (n: number) =>
  Array.from({ length: BATCH }, (_, i) => ({
    id: `b${n}-e${i}`,
    timestamp: Date.UTC(2025, 2, 1) + n * 1000 + i,
    path: `/page-${i % 7}`,
    userAgent: UA,
    ip: `198.51.100.${n % 200}`,
  }));

describe(`analytics durability on ${testBackend}`, () => {
  let database: TestDatabase;
  let child: ChildProcess | null = null;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    await database.drop();
  });

  it('loses no acknowledged event when the server is killed mid-ingest, and retries add nothing', async () => {
    database = createTestDatabase();
    const first = await serve(database);
    child = first.child;
    const { baseUrl, projectId } = first.banner;
    const key = first.banner.adminKey as string;
    const post = (events: unknown[]) =>
      fetch(`${baseUrl}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });

    const acknowledged = new Set<number>();
    // Every 202 the first server gave, with what it said it accepted: checked after the kill.
    const answers: { batch: number; accepted: number }[] = [];
    let next = 0;
    const sender = async () => {
      while (next < BATCHES) {
        const n = next++;
        const res = await post(batch(n)).catch(() => null); // null: the server died under it
        if (res?.status !== 202) continue;
        const body = (await res.json().catch(() => null)) as { accepted: number } | null;
        if (body === null) continue; // died while answering: not acknowledged
        answers.push({ batch: n, accepted: body.accepted });
        acknowledged.add(n);
      }
    };
    const senders = Array.from({ length: 6 }, sender);
    // Kill it hard while batches are in flight.
    while (acknowledged.size < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await Promise.all(senders);
    expect(acknowledged.size).toBeGreaterThanOrEqual(40);
    expect(acknowledged.size).toBeLessThan(BATCHES);
    expect(answers.filter((a) => a.accepted !== BATCH)).toEqual([]);

    const second = await serve(database);
    child = second.child;
    const again = (events: unknown[]) =>
      fetch(`${second.banner.baseUrl}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
    // Resend everything: an acknowledged batch is all duplicates; any other is all or nothing.
    const resent: {
      batch: number;
      acknowledged: boolean;
      status: number;
      accepted: number;
      duplicates: number;
    }[] = [];
    for (let n = 0; n < BATCHES; n++) {
      const res = await again(batch(n));
      const body = (await res.json()) as { accepted: number; duplicates: number };
      resent.push({ batch: n, acknowledged: acknowledged.has(n), status: res.status, ...body });
    }
    expect(resent.filter((r) => r.status !== 202)).toEqual([]);
    expect(resent.filter((r) => r.acknowledged && r.accepted !== 0)).toEqual([]);
    expect(resent.filter((r) => r.accepted !== 0 && r.accepted !== BATCH)).toEqual([]);
    expect(resent.filter((r) => r.accepted + r.duplicates !== BATCH)).toEqual([]);
    const views = await fetch(`${second.banner.baseUrl}/v1/analytics/${projectId}/views?limit=250`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(((await views.json()) as { totals: { total: number } }).totals.total).toBe(BATCHES * BATCH);
  }, 120_000);
});
