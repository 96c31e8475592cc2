// Searching a connected repository of 50,000 files once it is mirrored
// (npm run bench:context-search [-- --files N --runs N]). Goal: ≤ 1 s.
// Generates a repository of TypeScript files, connects it the way a job does (a mirror, fetched
// once), then times, alternated in one run, medians:
// - a search through Docwright (git grep over the mirror at the commit, .gitignore and vendored
//   folders left out, at most 100 matches);
// - the same pattern with the docs repository's search (every file of a checkout read in Node);
// - list_files' listing of the repository (first call: ls-tree; later calls: cached).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { searchFiles } from '../../src/domain/agent/tools/search-files.ts';
import { GitContextRepositories } from '../../src/integrations/git/context-repositories.ts';

const { values } = parseArgs({
  options: { files: { type: 'string', default: '50000' }, runs: { type: 'string', default: '7' } },
});
const files = Number(values.files);
const runs = Number(values.runs);
const WORDS =
  'alpha beta gamma delta retries timeout config client server request response handler error value default option flag'.split(
    ' ',
  );

const root = mkdtempSync(path.join(tmpdir(), 'docwright-bench-context-'));
try {
  const repo = path.join(root, 'api');
  let seed = 1;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  let started = performance.now();
  for (let i = 0; i < files; i++) {
    const dir = path.join(repo, 'src', `mod${i % 200}`, `sub${i % 17}`);
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let l = 0, n = 20 + Math.floor(random() * 100); l < n; l++) {
      lines.push(
        `${Array.from({ length: 8 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')} // ${i}-${l}`,
      );
    }
    writeFileSync(path.join(dir, `file${i}.ts`), `${lines.join('\n')}\n`);
  }
  writeFileSync(path.join(repo, 'src', 'needle.ts'), 'export const maxRetriesDefault = 3;\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@example.com', ...args], {
      cwd: repo,
      stdio: 'ignore',
    });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '--all');
  git('commit', '--quiet', '-m', 'Generated');
  console.log(
    `generated and committed ${files} files in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const context = new GitContextRepositories({
    dataDir: path.join(root, 'data'),
    logger: pino({ level: 'silent' }),
    refreshMs: 3_600_000,
  });
  started = performance.now();
  const { repositories } = await context.open('prj_bench', [{ name: 'api', repository: repo, ref: 'main' }], {
    credentialsFor: () => null,
  });
  const [connected] = repositories;
  if (!connected) throw new Error('not opened');
  console.log(`mirrored (first fetch) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const time = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  started = performance.now();
  const listed = await context.list(connected);
  console.log(`first listing: ${listed.length} files in ${Math.round(performance.now() - started)} ms`);

  const request = (pattern: string) => ({
    pattern,
    caseInsensitive: false,
    path: undefined,
    matches: () => true,
    maxMatches: 100,
    timeoutMs: 60_000,
    signal: undefined,
  });
  for (const pattern of ['maxRetriesDefault', 'retries timeout config', 'nothing-matches-this']) {
    const ours: number[] = [];
    const docsSearch: number[] = [];
    let found = 0;
    for (let i = 0; i < runs; i++) {
      ours.push(
        await time(async () => (found = (await context.search(connected, request(pattern))).matches.length)),
      );
      docsSearch.push(
        await time(() =>
          searchFiles(
            {
              start: { absolute: repo, relative: '.', isDirectory: true },
              source: pattern,
              flags: '',
              glob: undefined,
              maxMatches: 100,
              maxFileBytes: 1_000_000,
            },
            () => true,
          ),
        ),
      );
    }
    const [a, b] = [median(ours), median(docsSearch)];
    console.log(
      `search /${pattern}/ (${found} matches shown): connected repository ${Math.round(a)} ms, docs-style walk of a checkout ${Math.round(b)} ms (x${(b / a).toFixed(1)}), medians of ${runs}`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
