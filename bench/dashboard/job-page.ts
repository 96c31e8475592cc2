// A job page open in Chromium; a worker in another process changes the job's status; how long
// until the page shows it. Median over N samples, on SQLite and on PostgreSQL.
//
//   npm run bench:dashboard-job [-- --samples 12 --backend sqlite|postgres|both --postgres postgres://…]
//
// Four processes: `docwright serve --no-worker` (the API and the dashboard), `docwright worker`
// (no model is configured, so a turn it starts fails at once: a real status change, active →
// failed, written by the worker), Chromium (the page), and this one. For each sample a job is
// created through the API, its page opened, and once the page's event stream is open ("Live")
// the clock runs from the job's updatedAt after the change (the worker's clock, read just before
// its transaction) to the moment the page shows "Failed" (the page's clock); all share this
// machine's clock. The worker looks for work every 2 s, so the page is usually open first; a
// change made before the page's stream was open is not counted (the page read it, not followed it).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '12' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    backend: { type: 'string', default: 'both' },
  },
});
const SAMPLES = Number(values.samples);
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(root, 'bin/docwright.js');
const EMAIL = 'bench@example.com';
const PASSWORD = 'bench password, long enough';
const FAILED = '[data-testid=job-summary][data-status=failed]';
const log = (line: string) => process.stdout.write(`${line}\n`);

/** What the page's functions use of the browser's globals. */
interface InPage {
  document: { querySelector(selector: string): unknown; body: unknown };
  performance: { timeOrigin: number; now(): number };
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: Record<string, boolean>): void; disconnect(): void };
  shownAt?: number;
}

interface Started {
  child: ChildProcess;
  banner: Record<string, unknown>;
}

/** Starts a docwright command and resolves with its --json banner. */
function start(args: string[], env: Record<string, string>): Promise<Started> {
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

/** Runs a docwright command to its end, with `input` on its standard input. */
function run(args: string[], env: Record<string, string>, input: string): Promise<void> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  child.stdin?.end(input);
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`docwright ${args.join(' ')}: ${code}`)),
    ),
  );
}

async function stop(p: Started): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

async function measure(backend: 'sqlite' | 'postgres'): Promise<{ latencies: number[]; discarded: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `docwright-bench-job-page-${backend}-`));
  const schema = `dw_bench_page_${Date.now().toString(36)}`;
  const env: Record<string, string> = {
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_PORT: '0',
    DOCWRIGHT_RATE_LIMIT: '0',
    DOCWRIGHT_LOG_LEVEL: 'warn',
    ...(backend === 'postgres' ? { DATABASE_URL: values.postgres, DOCWRIGHT_DATABASE_SCHEMA: schema } : {}),
  };
  await run(['users', 'create', '--email', EMAIL, '--role', 'admin', '--password-stdin'], env, PASSWORD);
  const api = await start(['serve', '--no-worker'], env);
  const worker = await start(['worker'], { ...env, DOCWRIGHT_POLL_INTERVAL_MS: '2000' });
  const { baseUrl, projectId, adminKey } = api.banner as {
    baseUrl: string;
    projectId: string;
    adminKey: string;
  };
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const latencies: number[] = [];
  let discarded = 0;
  try {
    const page = await (await browser.newContext({ baseURL: baseUrl })).newPage();
    await page.goto('/sign-in');
    await page.locator('input[type=email]').fill(EMAIL);
    await page.locator('input[type=password]').fill(PASSWORD);
    await page.locator('button[type=submit]').click();
    await page.getByRole('button', { name: /account menu/ }).waitFor();

    while (latencies.length < SAMPLES && discarded < SAMPLES * 3) {
      const created = await fetch(`${baseUrl}/v2/agent/${projectId}/job`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `Sample ${latencies.length + discarded}` }),
      });
      const job = (await created.json()) as { id: string };
      await page.goto(`/projects/${projectId}/jobs/${job.id}`);
      // Epoch milliseconds on the page's clock: when its stream opened, when it showed the change.
      // Run in the page (through the DevTools protocol, which its CSP leaves alone); its DOM is
      // reached through globalThis, as this file's types know no DOM.
      const live = await page.waitForFunction(
        (failed) => {
          const { document, performance } = globalThis as unknown as InPage;
          const seen = document.querySelector('.live--on') ?? document.querySelector(failed);
          return seen ? performance.timeOrigin + performance.now() : false;
        },
        FAILED,
        { polling: 'raf', timeout: 15_000 },
      );
      const liveAt = (await live.jsonValue()) as number;
      // From here a MutationObserver notes the moment the page shows the change.
      await page.evaluate((failed) => {
        const page = globalThis as unknown as InPage;
        const note = () => {
          page.shownAt = page.performance.timeOrigin + page.performance.now();
        };
        if (page.document.querySelector(failed)) return note();
        const observer = new page.MutationObserver(() => {
          if (!page.document.querySelector(failed)) return;
          note();
          observer.disconnect();
        });
        observer.observe(page.document.body, { subtree: true, childList: true, attributes: true });
      }, FAILED);
      const shown = await page.waitForFunction(
        () => (globalThis as unknown as InPage).shownAt ?? false,
        undefined,
        {
          timeout: 15_000,
        },
      );
      const shownAt = (await shown.jsonValue()) as number;
      const after = (await (
        await fetch(`${baseUrl}/v2/agent/${projectId}/job/${job.id}`, {
          headers: { authorization: `Bearer ${adminKey}` },
        })
      ).json()) as { status: string; updatedAt: string };
      if (after.status !== 'failed') throw new Error(`job ${job.id} is ${after.status}, not failed`);
      const changedAt = Date.parse(after.updatedAt);
      if (changedAt < liveAt) discarded += 1;
      else latencies.push(Math.round(shownAt - changedAt));
    }
  } finally {
    await browser.close();
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
  return { latencies, discarded };
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
log(
  `Job page in Chromium: a worker process changes the job's status → the page shows it, ${SAMPLES} samples per backend`,
);
let met = true;
for (const backend of backends) {
  if (backend === 'postgres' && !(await postgresReachable())) {
    log(`postgres: skipped, no server at ${values.postgres}`);
    continue;
  }
  const { latencies, discarded } = await measure(backend);
  const median = percentile(latencies, 50);
  met &&= median <= 1000;
  log(
    `${backend}: median ${median} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms (n=${latencies.length}; ${discarded} changed before the page's stream was open, not counted)`,
  );
  log(`  samples (ms): ${latencies.join(', ')}`);
}
log(`target: median ≤ 1000 ms: ${met ? 'met' : 'NOT met'}`);
if (!met) process.exitCode = 1;
