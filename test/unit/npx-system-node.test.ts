import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
// The machine's own npx and Node, as a person's shell has them: without the node_modules/.bin
// directories that npm puts first on PATH for this suite (and with them the project's Node 24).
const SYSTEM_PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => !dir.split(path.sep).includes('node_modules'))
  .join(path.delimiter);
const systemNode = execFileSync('node', ['--version'], {
  env: { PATH: SYSTEM_PATH },
  encoding: 'utf8',
}).trim();

describe(`npx docwright under the system Node (${systemNode})`, () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('prints only its own output, also the first time npx links the project into its cache', async () => {
    // A cache of its own: npx links the project into <cache>/_npx on the first run, which is when
    // npm checked the project's engines against the Node running npm and warned (EBADENGINE).
    const cache = mkdtempSync(path.join(tmpdir(), 'docwright-npm-cache-'));
    dirs.push(cache);
    for (let run = 0; run < 3; run++) {
      const { stdout, stderr } = await promisify(execFile)('npx', ['docwright', '--version'], {
        cwd: PROJECT_ROOT,
        env: { PATH: SYSTEM_PATH, HOME: process.env.HOME ?? '', npm_config_cache: cache },
      });
      expect({ run, stdout, stderr }).toEqual({ run, stdout: `${version}\n`, stderr: '' });
    }
  }, 60_000);
});
