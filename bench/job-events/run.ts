// Live job events across processes: a worker process changes a job's status; how long until
// an SSE stream open on a separate API process receives it. Median and p95 over N samples, on
// SQLite (the API process polls the events table every 250 ms) and on PostgreSQL (LISTEN/NOTIFY).
//
// Three processes: `docwright serve --no-worker` (the API), `docwright worker` (no model is
// configured, so every turn it starts fails at once: a real status change, active → failed,
// written by the worker), and this one, the stream's client. The latency of a sample runs from
// the job's updatedAt in the final status event (the worker's clock, read just before its
// transaction) to the moment the event is parsed here; all three share this machine's clock.
// Only events that arrived live count: the stream must have been open before the change.
//
// Usage: npm run bench:job-events -- [--samples 40] [--postgres postgres://…] [--backend sqlite|postgres|both]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '40' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const samples = Number(values.samples);
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(root, 'bin/docwright.js');

interface Process {
  child: ChildProcess;
  banner: Record<string, unknown>;
}

/** Starts a docwright command and resolves with its --json banner. */
function start(args: string[], env: Record<string, string>): Promise<Process> {
  const child = spawn(process.execPath, [bin, ...args, '--json'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, banner: JSON.parse(line) as Record<string, unknown> });
    });
    child.on('exit', (code) => reject(new Error(`docwright ${args[0]} exited with ${code}`)));
  });
}

async function stop(p: Process): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

/** Reads SSE frames from a response; calls `onEvent` with each parsed event as it arrives. */
async function follow(
  response: Response,
  onEvent: (event: { id: number; type: string; data: Record<string, unknown> }, at: number) => boolean,
): Promise<void> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const at = Date.now();
    buffer += decoder.decode(value, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => !l.startsWith(':') && l.includes(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trimStart()]),
      );
      if (fields.data === undefined) continue;
      const event = { id: Number(fields.id), type: String(fields.event), data: JSON.parse(fields.data) };
      if (onEvent(event, at)) {
        await reader.cancel();
        return;
      }
    }
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

interface Result {
  backend: string;
  latencies: number[];
  discarded: number;
}

async function measure(backend: 'sqlite' | 'postgres'): Promise<Result> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `docwright-bench-events-${backend}-`));
  const schema = `dw_bench_${Date.now().toString(36)}`;
  const env: Record<string, string> = {
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_PORT: '0',
    DOCWRIGHT_RATE_LIMIT: '0',
    DOCWRIGHT_LOG_LEVEL: 'warn',
    ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
  };
  const api = await start(['serve', '--no-worker'], env);
  const worker = await start(['worker'], env);
  const { baseUrl, projectId, adminKey } = api.banner as {
    baseUrl: string;
    projectId: string;
    adminKey: string;
  };
  const headers = { authorization: `Bearer ${adminKey}` };
  const latencies: number[] = [];
  let discarded = 0;
  try {
    while (latencies.length < samples) {
      const created = await fetch(`${baseUrl}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `Sample ${latencies.length + discarded}` }),
      });
      const job = (await created.json()) as { id: string };
      const stream = await fetch(`${baseUrl}/v2/agent/${projectId}/job/${job.id}/events`, { headers });
      let openedAt = Number.POSITIVE_INFINITY;
      await follow(stream, (event, at) => {
        if (event.id === 0) openedAt = at;
        if (event.type !== 'status' || event.data.status !== 'failed') return false;
        const changedAt = Date.parse(String(event.data.updatedAt));
        // Written before the stream was open: replayed, not delivered live.
        if (changedAt < openedAt) discarded += 1;
        else latencies.push(at - changedAt);
        return true;
      });
    }
  } finally {
    await stop(worker);
    await stop(api);
    rmSync(dataDir, { recursive: true, force: true });
    if (backend === 'postgres') {
      const client = new pg.Client({ connectionString: values.postgres });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  }
  return { backend, latencies, discarded };
}

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: values.postgres, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const backends: ('sqlite' | 'postgres')[] =
  values.backend === 'both' ? ['sqlite', 'postgres'] : [values.backend as 'sqlite' | 'postgres'];
console.log(`Job events across processes: worker status change → SSE client, ${samples} samples per backend`);
console.log('backend     samples  median ms  p95 ms  max ms  (replayed, not counted)');
for (const backend of backends) {
  if (backend === 'postgres' && !(await postgresReachable())) {
    console.log(`postgres    skipped: no server at ${values.postgres}`);
    continue;
  }
  const { latencies, discarded } = await measure(backend);
  const row = [
    backend.padEnd(10),
    String(latencies.length).padStart(8),
    String(percentile(latencies, 50)).padStart(10),
    String(percentile(latencies, 95)).padStart(7),
    String(Math.max(...latencies)).padStart(7),
    `  (${discarded})`,
  ];
  console.log(row.join(' '));
}
