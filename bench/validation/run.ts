// Validation of a 1,100-page Mintlify site, as a job meets it
// (npm run bench:validation [-- --pages N --runs N --small]):
// - cold: a fresh process that has parsed nothing yet, the site never seen before, run --runs
//   times, each in its own process (bench/validation/site.ts), median reported;
// - restarted: a fresh process whose parse store (<data dir>/validation-parses) an earlier
//   process filled: the first job after the server restarts;
// - other working copy: the same content in another job's directory (parses reused by content);
// - base commit: the same site read from git without a checkout (what each turn compares with);
// - a turn's check: the working copy after a one-page edit, plus the base commit.
// Pages are about 6 KB each, with components, code blocks and a dozen links, the mean page of
// published Mintlify sites (mintlify/docs: 1,131 pages, 6.9 MB); --small makes 300-byte pages.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { compareFindings, validateDocumentation } from '../../src/domain/agent/tools/index.ts';
import { committedTree } from '../../src/integrations/git/committed-tree.ts';
import { GitRunner } from '../../src/integrations/git/git-runner.ts';
import { generateDocsRepository } from '../agent/generate-repo.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '1100' },
    runs: { type: 'string', default: '5' },
    small: { type: 'boolean', default: false },
  },
});
const pages = Number(values.pages);
const runs = Number(values.runs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const row = (label: string, ms: number) => `${label.padEnd(46)} ${ms.toFixed(0).padStart(6)} ms`;

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-validation-'));
try {
  generateDocsRepository(root, pages, { realistic: !values.small });
  const source = path.join(root, 'source');
  const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: source, encoding: 'utf8' }).trim();
  const git = new GitRunner({ logger: pino({ level: 'silent' }) });

  const freshProcess = (...args: string[]) => {
    const out = execFileSync(
      process.execPath,
      [path.join(import.meta.dirname, 'site.ts'), source, '--runs', '1', '--json', ...args],
      { encoding: 'utf8' },
    );
    return (JSON.parse(out) as { coldMs: number }).coldMs;
  };
  const colds = Array.from({ length: runs }, () => freshProcess());
  // A restarted server: an earlier process kept its parses in the store (the first run here).
  const store = path.join(root, 'validation-parses');
  freshProcess('--store', store);
  const restarts = Array.from({ length: runs }, () => freshProcess('--store', store));

  const time = async (fn: () => Promise<unknown>) => {
    const started = performance.now();
    await fn();
    return performance.now() - started;
  };
  const cold = await time(() => validateDocumentation(source));
  const copies: number[] = [];
  const base: number[] = [];
  const turn: number[] = [];
  for (let i = 0; i < runs; i++) {
    const copy = path.join(root, `job-${i}`);
    cpSync(source, copy, { recursive: true });
    copies.push(await time(() => validateDocumentation(copy)));
    base.push(await time(() => validateDocumentation(committedTree(git, { cwd: source }, sha))));
    writeFileSync(
      path.join(copy, 'section-00', 'page-0000.mdx'),
      `---\ntitle: Edited ${i}\n---\n\n[x](/nowhere-${i})\n`,
    );
    turn.push(
      await time(async () => {
        const [now, before] = await Promise.all([
          validateDocumentation(copy),
          validateDocumentation(committedTree(git, { cwd: source }, sha)),
        ]);
        const { introduced } = compareFindings(now, before);
        if (introduced.length !== 1) throw new Error(`expected one new finding, got ${introduced.length}`);
      }),
    );
  }
  const kind = values.small ? '300-byte' : '6 KB';
  console.log(
    `validation of a ${pages}-page Mintlify site (${kind} pages), ${availableParallelism()} cores; median of ${runs}`,
  );
  console.log(row('cold, a fresh process (nothing parsed yet)', median(colds)));
  console.log(`  each run: ${colds.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  console.log(row('cold, a restarted process (parses kept)', median(restarts)));
  console.log(`  each run: ${restarts.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  console.log(row('cold, in this process', cold));
  console.log(row("another job's working copy (parses reused)", median(copies)));
  console.log(row('the base commit, read from git', median(base)));
  console.log(row("a turn's check: edited copy + base, compared", median(turn)));
} finally {
  rmSync(root, { recursive: true, force: true });
}
