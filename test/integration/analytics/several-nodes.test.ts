import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { randomBase32 } from '../../../src/domain/ids.ts';
import { DOCWRIGHT_BIN } from '../../helpers/processes.ts';
import { createTestDatabase, type TestDatabase, testBackend } from '../../helpers/storage.ts';
import { ReferenceAnalytics, type TestEvent } from '../../unit/analytics/reference.ts';

const BATCH = 40;
const BATCHES = 240;
const DAY = 86_400_000;
const START = Date.UTC(2025, 2, 1);
const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Claude-User (claude-code/2.1.158; +https://support.anthropic.com/)',
];

interface Node {
  child: ChildProcess;
  baseUrl: string;
}

interface Banner {
  baseUrl: string;
  projectId: string;
  adminKey: string | null;
}

/**
 * One machine of a deployment: a `docwright serve --no-worker` or `docwright worker` process
 * with a data directory of its own, so nothing but the shared engines joins the nodes.
 */
async function startNode(
  args: string[],
  env: Record<string, string>,
  dataDir: string,
): Promise<{ child: ChildProcess; banner: Banner | null }> {
  const child = spawn(process.execPath, [DOCWRIGHT_BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      DOCWRIGHT_DATA_DIR: dataDir,
      DOCWRIGHT_PORT: '0',
      DOCWRIGHT_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  if (args[0] !== 'serve') return { child, banner: null };
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
    });
    child.on('exit', (code) => reject(new Error(`docwright ${args[0]} exited with ${code}: ${errors}`)));
  });
  return { child, banner: JSON.parse(line) as Banner };
}

/** Views spread over four days and a few pages, from visitors seen through IP and user agent only. */
function batch(n: number): TestEvent[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    id: `b${n}-e${i}`,
    timestamp: new Date(START + ((n * BATCH + i) % 4) * DAY + n * 997 + i).toISOString(),
    path: `/guide/page-${(i * i + n) % 9}`,
    userAgent: USER_AGENTS[(n + i * 3) % USER_AGENTS.length] as string,
    ip: `198.51.100.${(n * i) % 37}`,
  }));
}

const RANGES = [
  { query: 'dateFrom=2025-03-01&dateTo=2025-03-05', from: START, to: START + 4 * DAY },
  { query: 'dateFrom=2025-03-02&dateTo=2025-03-04', from: START + DAY, to: START + 3 * DAY },
  {
    query: `dateFrom=${encodeURIComponent('2025-03-01T12:00:00+02:00')}&dateTo=2025-03-03T06:00:00Z`,
    from: START + 10 * 3_600_000,
    to: START + 2 * DAY + 6 * 3_600_000,
  },
];

/**
 * Where the nodes keep their analytics: on SQLite the embedded engine (one machine); on
 * PostgreSQL the main database by default, and again with ClickHouse.
 */
const ENGINES = testBackend === 'sqlite' ? ['embedded'] : ['postgres', 'clickhouse'];

describe.each(ENGINES)(`analytics on several nodes (${testBackend}, analytics on %s)`, (engine) => {
  let database: TestDatabase;
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  /** The environment of every node: the main database, and the analytics engine of this run. */
  const nodeEnv = (): Record<string, string> => {
    if (engine === 'embedded') return database.env;
    // PostgreSQL is the analytics default when the main database is PostgreSQL.
    if (engine === 'postgres') return database.env;
    const url = inject('clickhouseUrl');
    const name = `dw_nodes_${randomBase32(12).toLowerCase()}`;
    cleanups.push(async () => {
      const admin = createClient({ url });
      await admin.command({ query: `DROP DATABASE IF EXISTS ${name}` });
      await admin.close();
    });
    return { ...database.env, DOCWRIGHT_ANALYTICS_URL: `${url}/${name}` };
  };

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await database.drop();
  });

  it('two API nodes and a worker: traffic to both, one killed mid-stream, retries; both exports equal the reference', async () => {
    database = createTestDatabase();
    const env = nodeEnv();
    // On SQLite the nodes are processes of one machine sharing its data directory; on PostgreSQL
    // each has a directory of its own, as separate machines would.
    const dataDir = () => {
      if (testBackend === 'sqlite') return database.dir;
      const dir = mkdtempSync(path.join(tmpdir(), 'dw-node-'));
      dirs.push(dir);
      return dir;
    };
    // The API nodes start at once on the fresh databases, as a deployment's replicas do: one
    // of them makes the first project and its key, the other finds them.
    const started = await Promise.allSettled([
      startNode(['serve', '--json', '--no-worker'], env, dataDir()),
      startNode(['serve', '--json', '--no-worker'], env, dataDir()),
    ]);
    for (const s of started) if (s.status === 'fulfilled') children.push(s.value.child);
    const [first, second] = started.map((s) => {
      if (s.status === 'rejected') throw s.reason;
      return s.value;
    }) as [Awaited<ReturnType<typeof startNode>>, Awaited<ReturnType<typeof startNode>>];
    const worker = await startNode(['worker'], env, dataDir());
    children.push(worker.child);
    const projectId = first.banner?.projectId as string;
    expect(second.banner?.projectId).toBe(projectId);
    const keys = [first.banner?.adminKey, second.banner?.adminKey].filter((k) => k != null);
    expect(keys).toHaveLength(1);
    const key = keys[0] as string;
    const nodes: Node[] = [
      { child: first.child, baseUrl: first.banner?.baseUrl as string },
      { child: second.child, baseUrl: second.banner?.baseUrl as string },
    ];
    const post = (node: Node, events: TestEvent[]) =>
      fetch(`${node.baseUrl}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });

    // A client that timed out and retried on the other node while its first request still
    // runs: the same batch reaches both nodes at once, and one of them stores it. (Before the
    // restart below: the days' salts are long past their retention, so a new process would key
    // these visitors afresh, as docs/analytics.md says of late views.)
    for (let n = BATCHES; n < BATCHES + 16; n++) {
      const answers = await Promise.all(
        nodes.map(async (node) => {
          const res = await post(node, batch(n));
          expect(res.status).toBe(202);
          return (await res.json()) as { accepted: number; duplicates: number };
        }),
      );
      expect(answers.map((a) => [a.accepted, a.duplicates]).sort()).toEqual([
        [0, BATCH],
        [BATCH, 0],
      ]);
    }

    // Alternate batches between the nodes, a few in flight at once; kill the first mid-stream.
    const acknowledged = new Set<number>();
    let next = 0;
    const sender = async () => {
      while (next < BATCHES) {
        const n = next++;
        const node = nodes[n % 2] as Node;
        const res = await post(node, batch(n)).catch(() => null); // null: the node died under it
        if (res?.status !== 202) continue;
        const body = (await res.json().catch(() => null)) as { accepted: number } | null;
        if (body !== null) acknowledged.add(n);
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    while (acknowledged.size < 30) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    await Promise.all(senders);
    expect(acknowledged.size).toBeLessThan(BATCHES);

    // The client retries what was not acknowledged on the surviving node, then a restarted first node joins again.
    for (let n = 0; n < BATCHES; n++) {
      if (acknowledged.has(n)) continue;
      const res = await post(nodes[1] as Node, batch(n));
      expect(res.status).toBe(202);
    }
    const restarted = await startNode(['serve', '--json', '--no-worker'], env, dataDir());
    children.push(restarted.child);
    nodes[0] = { child: restarted.child, baseUrl: restarted.banner?.baseUrl as string };

    const reference = new ReferenceAnalytics();
    for (let n = 0; n < BATCHES + 16; n++) reference.add(batch(n));

    for (const node of nodes) {
      for (const range of RANGES) {
        for (const measure of ['visitors', 'views'] as const) {
          const res = await fetch(
            `${node.baseUrl}/v1/analytics/${projectId}/${measure}?${range.query}&limit=100`,
            { headers: { authorization: `Bearer ${key}` } },
          );
          expect(res.status).toBe(200);
          const body = (await res.json()) as Record<string, unknown>;
          const expected = reference.pages({ from: range.from, to: range.to }, measure, false);
          expect({ totals: body.totals, rows: body[measure], hasMore: body.hasMore }).toEqual({
            totals: expected.totals,
            rows: expected.rows,
            hasMore: false,
          });
        }
      }
    }
  }, 180_000);
});
