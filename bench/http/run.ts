// HTTP benchmark for the job API: requests/s and p50/p99 latency of GET …/job/{id} and
// POST …/job on the embedded default (SQLite), next to a bare Fastify route, in one run; and
// the same GET through a dashboard session (/dashboard/api/v2/…, cookie instead of key).
// Usage: npm run bench:http -- [--duration 10] [--rounds 3] [--connections 50]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Started {
  child: ChildProcess;
  banner: Record<string, string>;
}

function start(args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, banner: JSON.parse(line) as Record<string, string> });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections, duration, ...options });
  const errors = result.errors + result.timeouts + result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'docwright-bench-'));
const bare = await start([path.join(root, 'bench/http/bare-server.ts')], {});
const docwright = await start([path.join(root, 'bin/docwright.js'), 'serve', '--json'], {
  DOCWRIGHT_DATA_DIR: dataDir,
  DOCWRIGHT_PORT: '0',
  DOCWRIGHT_RATE_LIMIT: '0',
  DOCWRIGHT_LOG_LEVEL: 'info',
});
const { baseUrl, projectId, adminKey, signInLink } = docwright.banner as {
  baseUrl: string;
  projectId: string;
  adminKey: string;
  signInLink: string;
};
const auth = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
const created = await fetch(`${baseUrl}/v2/agent/${projectId}/job`, {
  method: 'POST',
  headers: auth,
  body: JSON.stringify({ prompt: 'Benchmark job' }),
});
const { id } = (await created.json()) as { id: string };
// The first start's sign-in link sets up the owner account and opens a session.
const signedIn = await fetch(`${baseUrl}/dashboard/api/sign-in-links/redeem`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    token: new URL(signInLink).hash.replace('#token=', ''),
    email: 'bench@example.com',
    password: 'a benchmark passphrase',
  }),
});
const session = { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };

const results: Record<'bare' | 'get' | 'session' | 'post', Figures[]> = {
  bare: [],
  get: [],
  session: [],
  post: [],
};
console.log(
  `Node ${process.version}; ${connections} connections, ${duration} s per run, ${rounds} rounds (alternating)`,
);
for (let round = 1; round <= rounds; round++) {
  results.bare.push(await load({ url: `${bare.banner.baseUrl}/job` }));
  results.get.push(await load({ url: `${baseUrl}/v2/agent/${projectId}/job/${id}`, headers: auth }));
  results.session.push(
    await load({ url: `${baseUrl}/dashboard/api/v2/agent/${projectId}/job/${id}`, headers: session }),
  );
  results.post.push(
    await load({
      url: `${baseUrl}/v2/agent/${projectId}/job`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ prompt: 'Document the webhook retry policy' }),
    }),
  );
  const ratio = (results.get.at(-1)?.rps ?? 0) / (results.bare.at(-1)?.rps ?? 1);
  console.log(
    `round ${round}: bare ${results.bare.at(-1)?.rps.toFixed(0)} req/s, GET job ${results.get.at(-1)?.rps.toFixed(0)} req/s (${(ratio * 100).toFixed(0)}%), through a session ${results.session.at(-1)?.rps.toFixed(0)} req/s, POST job ${results.post.at(-1)?.rps.toFixed(0)} req/s`,
  );
}

const row = (name: string, runs: Figures[]) => ({
  endpoint: name,
  'req/s (median)': Math.round(median(runs.map((r) => r.rps))),
  'p50 ms': median(runs.map((r) => r.p50)),
  'p99 ms': median(runs.map((r) => r.p99)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});
console.table([
  row('bare Fastify route', results.bare),
  row('GET /v2/agent/{projectId}/job/{id}', results.get),
  row('GET /dashboard/api/v2/agent/{projectId}/job/{id} (session)', results.session),
  row('POST /v2/agent/{projectId}/job', results.post),
]);
const ratios = results.get.map((r, i) => r.rps / (results.bare[i]?.rps ?? 1));
const ratio = median(ratios);
const p99 = median(results.get.map((r) => r.p99));
console.log(
  `GET job / bare throughput: ${(ratio * 100).toFixed(1)}% (median of per-round ratios; goal ≥ 60%)`,
);
console.log(`GET job p99: ${p99} ms (goal < 10 ms)`);

bare.child.kill('SIGTERM');
docwright.child.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 500));
rmSync(dataDir, { recursive: true, force: true });
