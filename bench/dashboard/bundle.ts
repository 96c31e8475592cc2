// The dashboard's bundle budget: the JavaScript of the first page load, gzipped, must stay at or
// under 250 KB. The first load is the entry chunk and every chunk it imports statically (Vite's
// manifest says which); pages loaded lazily come later and are listed apart.
//
//   npm run bench:dashboard
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildDashboard, DASHBOARD_DIST } from '../../scripts/build-dashboard.ts';

export const FIRST_LOAD_BUDGET_BYTES = 250 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface BundleFile {
  file: string;
  bytes: number;
  gzipBytes: number;
}

export interface BundleReport {
  firstLoad: BundleFile[];
  firstLoadCss: BundleFile[];
  lazy: BundleFile[];
  firstLoadGzipBytes: number;
}

function measure(file: string): BundleFile {
  const content = readFileSync(path.join(DASHBOARD_DIST, file));
  return { file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
}

/** Sizes of the built dashboard's chunks, from its manifest. */
export function measureBundle(): BundleReport {
  const manifest = JSON.parse(
    readFileSync(path.join(DASHBOARD_DIST, '.vite/manifest.json'), 'utf8'),
  ) as Record<string, ManifestChunk>;
  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry);
  const eager = new Set<string>();
  const visit = (key: string) => {
    if (eager.has(key)) return;
    eager.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  for (const entry of entries) visit(entry);
  const chunk = (key: string) => manifest[key] as ManifestChunk;
  const firstLoad = [...eager].map((key) => measure(chunk(key).file));
  const firstLoadCss = [...new Set([...eager].flatMap((key) => chunk(key).css ?? []))].map(measure);
  const lazy = Object.keys(manifest)
    .filter((key) => !eager.has(key) && chunk(key).file.endsWith('.js'))
    .map((key) => measure(chunk(key).file));
  return {
    firstLoad,
    firstLoadCss,
    lazy,
    firstLoadGzipBytes: firstLoad.reduce((sum, f) => sum + f.gzipBytes, 0),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDashboard({ ifStale: true });
  const report = measureBundle();
  const row = (f: BundleFile) =>
    `  ${f.file.padEnd(44)} ${kb(f.bytes).padStart(10)} ${kb(f.gzipBytes).padStart(10)}`;
  console.log(`  ${'file'.padEnd(44)} ${'raw'.padStart(10)} ${'gzip'.padStart(10)}`);
  console.log('First page load, JavaScript (the entry and its static imports):');
  for (const f of report.firstLoad) console.log(row(f));
  console.log('First page load, CSS:');
  for (const f of report.firstLoadCss) console.log(row(f));
  console.log('Loaded when a page is first visited:');
  for (const f of report.lazy.sort((a, b) => b.gzipBytes - a.gzipBytes)) console.log(row(f));
  const within = report.firstLoadGzipBytes <= FIRST_LOAD_BUDGET_BYTES;
  console.log(
    `\nJavaScript of the first page load: ${kb(report.firstLoadGzipBytes)} gzipped (budget ${kb(FIRST_LOAD_BUDGET_BYTES)}): ${within ? 'within' : 'OVER'} budget`,
  );
  if (!within) process.exitCode = 1;
}
