// Validation of a 1,000-page site, as a job meets it (npm run bench:validation [-- --pages N --runs N]):
// - cold: a process that has parsed nothing yet (the first job of a project);
// - other working copy: the same content in another job's directory (parses reused by content);
// - base commit: the same site read from git without a checkout (what each turn compares with);
// - a turn's check: the working copy after a one-page edit, plus the base commit.
// The old parse cache was keyed by path, so a new job's working copy paid the cold cost again.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { compareFindings, validateDocumentation } from '../../src/domain/agent/tools/index.ts';
import { committedTree } from '../../src/integrations/git/committed-tree.ts';
import { GitRunner } from '../../src/integrations/git/git-runner.ts';
import { generateDocsRepository } from '../agent/generate-repo.ts';

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
});
const pages = Number(values.pages);
const runs = Number(values.runs);

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-validation-'));
try {
  generateDocsRepository(root, pages);
  const source = path.join(root, 'source');
  const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: source, encoding: 'utf8' }).trim();
  const git = new GitRunner({ logger: pino({ level: 'silent' }) });

  const time = async (fn: () => Promise<unknown>) => {
    const started = performance.now();
    await fn();
    return performance.now() - started;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

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
  const row = (label: string, ms: number) => `${label.padEnd(46)} ${ms.toFixed(0).padStart(6)} ms`;
  console.log(`validation of a ${pages}-page Mintlify site (median of ${runs} where repeated)`);
  console.log(row('cold (nothing parsed yet)', cold));
  console.log(row("another job's working copy (parses reused)", median(copies)));
  console.log(row('the base commit, read from git', median(base)));
  console.log(row("a turn's check: edited copy + base, compared", median(turn)));
  console.log(`cold / reused: ${(cold / median(copies)).toFixed(1)}×`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
