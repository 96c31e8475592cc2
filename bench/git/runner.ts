// What the git runner's safety costs per command (npm run bench:git [-- --commands N]).
// Each command through GitRunner first lists the configuration it will see (one extra
// `git config` process) to neutralise the drivers a repository names. Baseline: the same
// command as a bare execFile of git, alternated with the runner in one run; medians.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { pino } from 'pino';
import { GitRunner } from '../../src/integrations/git/git-runner.ts';

const { values } = parseArgs({ options: { commands: { type: 'string', default: '200' } } });
const commands = Number(values.commands);
const run = promisify(execFile);

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-git-'));
try {
  const repo = path.join(root, 'docs');
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  for (let i = 0; i < 50; i++) writeFileSync(path.join(repo, `page-${i}.md`), `# Page ${i}\n`);
  execFileSync('git', ['-C', repo, 'add', '--all']);
  execFileSync('git', [
    '-C',
    repo,
    '-c',
    'user.name=B',
    '-c',
    'user.email=b@example.com',
    'commit',
    '-qm',
    'x',
  ]);
  const runner = new GitRunner({ logger: pino({ level: 'silent' }) });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const time = async (fn: () => Promise<unknown>) => {
    const started = performance.now();
    await fn();
    return performance.now() - started;
  };
  for (const args of [
    ['rev-parse', 'HEAD'],
    ['diff', '--name-only', 'HEAD'],
  ]) {
    const plain: number[] = [];
    const guarded: number[] = [];
    for (let i = 0; i < commands; i++) {
      plain.push(await time(() => run('git', args, { cwd: repo })));
      guarded.push(await time(() => runner.run(args, { cwd: repo })));
    }
    const [p, g] = [median(plain), median(guarded)];
    console.log(
      `git ${args.join(' ')}: plain ${p.toFixed(2)} ms, through the runner ${g.toFixed(2)} ms (x${(g / p).toFixed(2)}, +${(g - p).toFixed(2)} ms), medians of ${commands}`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
