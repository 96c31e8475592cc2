import { execFile } from 'node:child_process';
import { cp, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ProjectInfo } from '../domain/projects/project-service.ts';
import type { Services } from './services.ts';

const run = promisify(execFile);
const EXAMPLE_SITE = fileURLToPath(new URL('../../examples/docs-site', import.meta.url));

export interface FirstRun {
  project: ProjectInfo;
  /** Present only when the key was created just now: it is never shown again. */
  newKey: string | null;
  /** When that key expires (the default lifetime of a key). */
  newKeyExpiresAt: string | null;
}

/**
 * On a fresh install there is no project: create one pointing at a copy of the example
 * documentation site (a local git repository in the data dir) and an admin key for it.
 */
export async function ensureDefaultProject(services: Services): Promise<FirstRun> {
  const existing = await services.projects.list();
  const first = existing[0];
  if (first) return { project: first, newKey: null, newKeyExpiresAt: null };
  const repository = path.join(services.config.dataDir, 'repos', 'example-docs');
  await createExampleRepository(repository);
  const project = await services.projects.create({ name: 'Example docs', repository, baseBranch: 'main' });
  const { key, info } = await services.keys.create(project.id, { name: 'first-run', scope: 'admin' });
  return { project, newKey: key, newKeyExpiresAt: info.expiresAt };
}

async function createExampleRepository(target: string): Promise<void> {
  if (await exists(path.join(target, '.git'))) return;
  await mkdir(target, { recursive: true });
  await cp(EXAMPLE_SITE, target, { recursive: true });
  const git = (...args: string[]) =>
    run('git', ['-c', 'user.name=Docwright', '-c', 'user.email=docwright@localhost', ...args], {
      cwd: target,
    });
  await git('init', '--quiet', '--initial-branch=main');
  await git('add', '--all');
  await git('commit', '--quiet', '-m', 'Example documentation site');
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
