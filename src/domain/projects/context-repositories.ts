import type { Storage } from '../../storage/database.ts';
import {
  deleteContextRepository,
  insertContextRepository,
  listContextRepositories,
} from '../../storage/queries/context-repositories.ts';
import { findProject } from '../../storage/queries/projects.ts';
import type { ContextRepositoryRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import {
  acceptRepository,
  checkRepository,
  type RepositoryOrigin,
  validateBranch,
} from './repository-acceptance.ts';
import type { RepositoryProbe } from './repository-probe.ts';

/**
 * A source repository connected to a project: read-only context its documentation agent can
 * list, read and search (the product's code, an SDK, an API definition).
 */
export interface ContextRepository {
  /** Unique in the project: the `repository` argument of the agent's tools. */
  name: string;
  /** A git URL, or an absolute path on the server. */
  repository: string;
  /** The branch read. */
  ref: string;
  createdAt: string;
}

/** A name the agent's tools and a shell can carry as is: lower-case letters, digits, `.`, `_`, `-`. */
export const CONTEXT_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
/** More would crowd the agent's prompt and every turn's fetches. */
export const MAX_CONTEXT_REPOSITORIES = 20;

/** Deletes a disconnected repository's mirror on disk (integrations/git). */
export interface ContextMirrorRemoval {
  remove(projectId: string, name: string): Promise<void>;
}

/** Connects, lists and disconnects a project's source repositories. */
export class ContextRepositoryService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly probe: RepositoryProbe | null;
  private readonly mirrors: ContextMirrorRemoval | null;
  constructor(
    storage: Storage,
    clock: Clock,
    probe: RepositoryProbe | null = null,
    mirrors: ContextMirrorRemoval | null = null,
  ) {
    this.storage = storage;
    this.clock = clock;
    this.probe = probe;
    this.mirrors = mirrors;
  }

  async list(projectId: string): Promise<ContextRepository[]> {
    await this.requireProject(projectId);
    return (await listContextRepositories(this.storage.db, projectId)).map(toContextRepository);
  }

  /**
   * Connects a repository once its name, location and branch are checked like a project's
   * own (a path over HTTP only under the allowed roots). 409 when the name is taken.
   */
  async add(
    projectId: string,
    input: { name: string; repository: string; ref?: string | undefined },
    origin: RepositoryOrigin = {},
  ): Promise<ContextRepository & { warnings: string[] }> {
    await this.requireProject(projectId);
    const name = input.name.trim();
    if (!CONTEXT_NAME.test(name)) {
      throw invalid(
        `name: "${input.name}" is not a connected repository name: 1 to 63 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
    const repository = await acceptRepository(input.repository, origin);
    const ref = validateBranch(input.ref ?? 'main');
    const existing = await listContextRepositories(this.storage.db, projectId);
    if (existing.some((row) => row.name === name)) throw conflictOf(name);
    if (existing.length >= MAX_CONTEXT_REPOSITORIES) {
      throw invalid(`A project connects at most ${MAX_CONTEXT_REPOSITORIES} repositories; remove one first`);
    }
    const warnings = await checkRepository(this.probe, repository, ref);
    const row: ContextRepositoryRow = {
      project_id: projectId,
      name,
      repository,
      ref,
      created_at: iso(this.clock()),
    };
    if (!(await insertContextRepository(this.storage.db, row))) throw conflictOf(name);
    return { ...toContextRepository(row), warnings };
  }

  /** Disconnects it; jobs already running keep what they read. 404 when there is none of that name. */
  async remove(projectId: string, name: string): Promise<void> {
    await this.requireProject(projectId);
    if (!(await deleteContextRepository(this.storage.db, projectId, name))) {
      throw notFound(`Project ${projectId} has no connected repository named "${name}"`);
    }
    // Its mirror goes too, so a repository connected again under the name starts afresh.
    await this.mirrors?.remove(projectId, name);
  }

  private async requireProject(projectId: string): Promise<void> {
    if (!(await findProject(this.storage.db, projectId))) throw notFound(`Project ${projectId} not found`);
  }
}

const conflictOf = (name: string) =>
  conflict(
    `A repository named "${name}" is already connected to this project; remove it first or choose another name`,
  );

function toContextRepository(row: ContextRepositoryRow): ContextRepository {
  return { name: row.name, repository: row.repository, ref: row.ref, createdAt: row.created_at };
}
