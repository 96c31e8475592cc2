// Builds the dashboard (src/dashboard) into dist/dashboard with Vite.
//
//   node scripts/build-dashboard.ts            build
//   node scripts/build-dashboard.ts --if-stale build only when the inputs changed since the last build
//
// `npm ci` runs it (prepare), `npm start` runs it with --if-stale (prestart), and so does the test
// suite's global setup. The inputs' hash is stored beside the output, so an unchanged dashboard
// costs one hash of a few dozen files.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE = path.join(ROOT, 'src/dashboard');
export const DASHBOARD_DIST = path.join(ROOT, 'dist/dashboard');
const HASH_FILE = '.build-hash';

/** A hash of everything the output depends on: the sources, the Vite config and the locked packages. */
export function inputsHash(): string {
  const hash = createHash('sha256');
  const files = (readdirSync(SOURCE, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isFresh(hash = inputsHash()): boolean {
  const stored = path.join(DASHBOARD_DIST, HASH_FILE);
  return (
    existsSync(path.join(DASHBOARD_DIST, 'index.html')) &&
    existsSync(stored) &&
    readFileSync(stored, 'utf8').trim() === hash
  );
}

/** Builds into a scratch folder and swaps it in, so a running server never sees half a build. */
export async function buildDashboard({ ifStale = false } = {}): Promise<'built' | 'fresh'> {
  const hash = inputsHash();
  if (ifStale && isFresh(hash)) return 'fresh';
  if (ifStale) console.log('The dashboard is missing or its sources changed: building it…');
  const { build } = await import('vite');
  const scratch = `${DASHBOARD_DIST}.building-${process.pid}`;
  const started = performance.now();
  // Vite lets NODE_ENV from the environment decide React's build: a build started by the test
  // runner (NODE_ENV=test) would otherwise ship React's development build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: path.join(SOURCE, 'vite.config.ts'),
      mode: 'production',
      logLevel: ifStale ? 'warn' : 'info',
      build: { outDir: scratch },
    });
    writeFileSync(path.join(scratch, HASH_FILE), `${hash}\n`);
    rmSync(DASHBOARD_DIST, { recursive: true, force: true });
    renameSync(scratch, DASHBOARD_DIST);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    rmSync(scratch, { recursive: true, force: true });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`Dashboard built into ${path.relative(process.cwd(), DASHBOARD_DIST)} in ${seconds} s`);
  return 'built';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  try {
    await buildDashboard({ ifStale });
  } catch (error) {
    console.error(`Building the dashboard failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  }
}
