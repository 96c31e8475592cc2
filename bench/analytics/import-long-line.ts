// Peak memory of `docwright analytics import` on a file that is one long line without a newline
// (a binary dump, a log written without line ends), the case where an import used to hold the
// whole line: 1.39 GB at the peak for 200 MB. `node bench/analytics/import-long-line.ts
// [--mb 50,200] [--workers 1,2]`: writes the files (1 MiB at a time) and a one-line log for
// the baseline in a temporary data dir on SQLite and the embedded engine, then runs the binary
// on each, once per worker count (1: the single-threaded path; more: worker threads; a file
// under 16 MiB is always read in one thread), with the server's Node flags, and prints each
// run's time, peak resident memory and summary. Flat memory: the same peak at every size.
import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '50,200' }, workers: { type: 'string', default: '1,2' } },
});
const BIN = fileURLToPath(new URL('../../bin/docwright.js', import.meta.url));
// As the binary's shebang and `npm start` run it.
const NODE_FLAGS = ['--max-semi-space-size=16', '--heap-growing-percent=100'];

const dir = mkdtempSync(path.join(tmpdir(), 'dw-long-line-'));
const env = { ...process.env, DOCWRIGHT_DATA_DIR: path.join(dir, 'data'), DOCWRIGHT_LOG_LEVEL: 'silent' };
// The process's own peak (all threads), written as it exits: nothing samples it from outside.
const reporter = path.join(dir, 'peak.mjs');
writeFileSync(
  reporter,
  "import { writeSync } from 'node:fs';\nprocess.on('exit', () => writeSync(2, '\\npeak-rss-kib ' + process.resourceUsage().maxRSS + '\\n'));\n",
);

function docwright(args: string[]): Promise<{ stdout: string; peakMb: number; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...NODE_FLAGS, '--import', reporter, BIN, ...args, '--json'],
      { env, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`docwright ${args.join(' ')}: ${stderr}`));
        const kib = Number(/peak-rss-kib (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
        resolve({ stdout, peakMb: kib / 1024, seconds: (performance.now() - started) / 1000 });
      },
    );
  });
}

try {
  const sizes = (values.mb ?? '200').split(',').map(Number);
  const files: Array<[string, string]> = [];
  for (const mb of sizes) {
    const file = path.join(dir, `no-newline-${mb}.log`);
    const fd = openSync(file, 'w');
    const piece = Buffer.alloc(1 << 20, 'x');
    for (let i = 0; i < mb; i++) writeSync(fd, piece);
    closeSync(fd);
    files.push([`${mb} MiB`, file]);
  }
  const small = path.join(dir, 'one-line.log');
  writeFileSync(
    small,
    '203.0.113.7 - - [01/Mar/2025:10:00:00 +0000] "GET /quickstart HTTP/1.1" 200 2326 "-" "Mozilla/5.0 Firefox/133.0"\n',
  );
  const project = JSON.parse(
    (await docwright(['projects', 'create', '--name', 'bench', '--repo', 'https://example.com/b.git']))
      .stdout,
  ).id as string;

  console.log(
    `Files of one line without a newline; the baseline: one log line (${readFileSync(small).length} bytes)`,
  );
  console.log('file        workers  seconds  peak RSS  lines  skipped  reasons');
  const runs: Array<[string, string]> = [['baseline', small], ...files];
  for (const [name, file] of runs) {
    for (const workers of (values.workers ?? '1').split(',')) {
      const run = await docwright(['analytics', 'import', '--project', project, '--workers', workers, file]);
      const summary = JSON.parse(run.stdout) as { lines: number; skipped: number; reasons: unknown };
      console.log(
        `${name.padEnd(11)} ${workers.padStart(7)}  ${run.seconds.toFixed(1).padStart(7)}  ${`${run.peakMb.toFixed(0)} MB`.padStart(8)}  ${String(summary.lines).padStart(5)}  ${String(summary.skipped).padStart(7)}  ${JSON.stringify(summary.reasons)}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
