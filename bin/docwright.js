#!/usr/bin/env -S node --max-semi-space-size=16 --heap-growing-percent=100
// Docwright runs its TypeScript sources directly. Node >= 22.18 strips types natively;
// on 22.12-22.17 the flag is needed, so re-run this process with it.
//
// --max-semi-space-size=16 (also in `npm start`): V8's young generation, by default up to two
// 64 MB semi-spaces on a machine with this much memory, is capped at 16 MB each. A server's
// garbage is mostly short-lived request data, so this cost no CPU we could measure and kept
// 50-100 MB off the API process's peak (docs/analytics-engines.md, "Server memory").
// --heap-growing-percent=100: a full collection once the old generation has doubled since the
// last one, rather than V8's adaptive factor of up to 4x. Requests in flight
// are promoted there and die soon after: 150-170 MB off the peak with 10 M views, at no
// ingestion cost beyond the runs' spread; not a cap, so a large heap still grows.
import { spawn } from 'node:child_process';

const entry = new URL('../src/cli/main.ts', import.meta.url);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `Docwright needs Node.js 22.12 or newer; this is ${process.version}.\n` +
      'The project brings its own Node 24: run it through npm (npm ci, then npm start or npx docwright …),\n' +
      'which puts node_modules/.bin/node first on PATH.\n',
  );
  process.exit(1);
}

if (process.features.typescript) {
  await import(entry.href);
} else {
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      entry.pathname,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}
