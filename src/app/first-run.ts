import { cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { randomBase32 } from '../domain/ids.ts';
import type { ProjectInfo } from '../domain/projects/project-service.ts';
import type { UserInfo } from '../domain/users/user-service.ts';
import { GitRunner } from '../integrations/git/git-runner.ts';
import type { Services } from './services.ts';

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
 * `docwright serve` calls it once it listens, so a start that fails (a port in use) creates
 * nothing, and the key is printed by the start that serves.
 * Processes starting at once on a fresh database take turns (a lock of the main database), so
 * one of them creates it and the others find it.
 */
export function ensureDefaultProject(services: Services, logger: Logger): Promise<FirstRun> {
  return services.storage.locks.holding(['first run'], () => createDefaultProject(services, logger));
}

async function createDefaultProject(services: Services, logger: Logger): Promise<FirstRun> {
  const existing = await services.projects.list();
  const first = existing[0];
  if (first) return { project: first, newKey: null, newKeyExpiresAt: null };
  // A copy of its own for each installation: another one that used this data directory (a
  // SQLite install moved to PostgreSQL) keeps its example repository and what was merged into it.
  const repository = path.join(
    services.config.dataDir,
    'repos',
    `example-docs-${randomBase32(8).toLowerCase()}`,
  );
  let project: ProjectInfo;
  try {
    await createExampleRepository(repository, new GitRunner({ logger }));
    project = await services.projects.create({ name: 'Example docs', repository, baseBranch: 'main' });
  } catch (error) {
    await rm(repository, { recursive: true, force: true });
    throw error;
  }
  const { key, info } = await services.keys.create(project.id, { name: 'first-run', scope: 'admin' });
  return { project, newKey: key, newKeyExpiresAt: info.expiresAt };
}

export interface FirstSignIn {
  /** The owner account nobody has signed in to yet (`owner@localhost` until the link sets its email). */
  user: UserInfo;
  /** A new one-time link token (`dwl_…`); the banner builds the URL from the public URL. */
  token: string;
  expiresAt: string;
}

/**
 * On a fresh installation nobody can sign in to the dashboard: make an owner account without
 * a password (if there is no account) and a one-time sign-in link for it, which sets its
 * email and password. A new link at every start until someone has signed in that way, so a
 * lost banner costs a restart at most. Null once an account has a password.
 */
export async function ensureFirstSignIn(services: Services): Promise<FirstSignIn | null> {
  // Two processes starting on a fresh database race to create the owner: the one that loses
  // finds it on a second look.
  const pending = await services.users.ownerToSetUp().catch(() => services.users.ownerToSetUp());
  if (!pending) return null;
  const { token, expiresAt } = await services.signInLinks.create(pending.user.id);
  return { user: pending.user, token, expiresAt };
}

async function createExampleRepository(target: string, git: GitRunner): Promise<void> {
  await mkdir(target, { recursive: true });
  await cp(EXAMPLE_SITE, target, { recursive: true });
  const options = { cwd: target, config: { 'user.name': 'Docwright', 'user.email': 'docwright@localhost' } };
  await git.run(['init', '--quiet', '--initial-branch=main'], options);
  await git.run(['add', '--all'], options);
  await git.run(['commit', '--quiet', '-m', 'Example documentation site'], options);
}
