import path from 'node:path';
import type { Storage } from '../../storage/database.ts';
import { findJobById } from '../../storage/queries/jobs.ts';
import { findProject, insertProject, listProjects, updateProject } from '../../storage/queries/projects.ts';
import type { ProjectRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { isLocalRepository } from './code-host-settings.ts';
import { requireUnderRoots } from './local-repository-roots.ts';
import { type Project, projectModel, toProject } from './project.ts';
import type { RepositoryProbe } from './repository-probe.ts';

export interface ProjectInfo {
  id: string;
  name: string;
  repository: string;
  baseBranch: string;
  model: string | null;
  createdAt: string;
}

/** Who names a repository, and so where a path may lead. */
export interface RepositoryOrigin {
  /** What a relative path is relative to (default: this process's directory). */
  cwd?: string;
  /**
   * Directories a path must lie under: set for requests over HTTP (DOCWRIGHT_LOCAL_REPOSITORY_ROOTS);
   * absent for the command line, which runs with the server's own rights.
   */
  localRoots?: readonly string[];
}

export interface NewProject {
  name: string;
  repository: string;
  baseBranch?: string | undefined;
}

/** A project as created or moved, with what could not be checked yet. */
export interface CheckedProject extends ProjectInfo {
  /** E.g. a remote repository that could not be reached without credentials. */
  warnings: string[];
}

export class ProjectService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly probe: RepositoryProbe | null;
  /** Without a probe, repositories are taken as given (tests that need no git). */
  constructor(storage: Storage, clock: Clock, probe: RepositoryProbe | null = null) {
    this.storage = storage;
    this.clock = clock;
    this.probe = probe;
  }

  /** Creates a project once its repository and base branch are checked. */
  async create(input: NewProject, origin: RepositoryOrigin = {}): Promise<CheckedProject> {
    const name = input.name.trim();
    if (!name) throw invalid('Project name must not be empty');
    const repository = await this.acceptRepository(input.repository, origin);
    const baseBranch = validateBranch(input.baseBranch ?? 'main');
    const warnings = await this.check(repository, baseBranch);
    const row: ProjectRow = {
      id: newId('prj'),
      name,
      repository,
      base_branch: baseBranch,
      settings: '{}',
      created_at: iso(this.clock()),
    };
    await insertProject(this.storage.db, row);
    return { ...toProjectInfo(row), warnings };
  }

  /**
   * Renames a project or points it at another repository or base branch (those checked
   * first, like at creation); jobs made before keep theirs.
   */
  async relocate(
    id: string,
    change: { name?: string | undefined; repository?: string | undefined; baseBranch?: string | undefined },
    origin: RepositoryOrigin = {},
  ): Promise<CheckedProject> {
    const current = await this.get(id);
    const name = change.name === undefined ? current.name : change.name.trim();
    if (!name) throw invalid('Project name must not be empty');
    const repository =
      change.repository === undefined
        ? current.repository
        : await this.acceptRepository(change.repository, origin);
    const baseBranch =
      change.baseBranch === undefined ? current.baseBranch : validateBranch(change.baseBranch);
    const moved = change.repository !== undefined || change.baseBranch !== undefined;
    const warnings = moved ? await this.check(repository, baseBranch) : [];
    const row = await updateProject(this.storage.db, id, { name, repository, base_branch: baseBranch });
    if (!row) throw notFound(`Project ${id} not found`);
    return { ...toProjectInfo(row), warnings };
  }

  /** A repository as stored: a URL as given, a path made absolute and, when roots are set, checked against them. */
  private async acceptRepository(repository: string, origin: RepositoryOrigin): Promise<string> {
    const value = normaliseRepository(repository, origin.cwd ?? process.cwd());
    if (origin.localRoots && isLocalRepository(value)) await requireUnderRoots(value, origin.localRoots);
    return value;
  }

  /** The project a job belongs to (job ids are unique across projects). */
  async projectOfJob(jobId: string): Promise<string> {
    const job = await findJobById(this.storage.db, jobId);
    if (!job) throw notFound(`Job ${jobId} not found`);
    return job.project_id;
  }

  /**
   * Refuses a local path that is not a git repository, and a repository that answers without
   * the base branch (naming the branches it has). A remote that cannot be asked (no network,
   * or credentials needed, which are set after creation) is a warning: jobs will say more.
   */
  private async check(repository: string, baseBranch: string): Promise<string[]> {
    if (!this.probe) return [];
    const found = await this.probe.probe(repository, baseBranch);
    switch (found.kind) {
      case 'ok':
        return [];
      case 'not-a-repository':
        throw invalid(`Repository ${repository} cannot be used: ${found.detail}`);
      case 'missing-branch':
        throw invalid(
          `Repository ${repository} has no branch "${baseBranch}"` +
            (found.branches.length > 0
              ? `; its branches include ${found.branches.join(', ')} (choose one with --ref)`
              : ' (it has no branches yet: push one first)'),
        );
      case 'forbidden':
        throw invalid(`repository ${repository} cannot be used: ${found.detail}`);
      case 'unreachable':
        return [
          `Could not check ${repository} now (${found.detail}). If it is private, store credentials with docwright projects update <id> --token-stdin; each job fetches it and reports a failure clearly.`,
        ];
    }
  }

  async list(): Promise<ProjectInfo[]> {
    return (await listProjects(this.storage.db)).map(toProjectInfo);
  }

  async get(id: string): Promise<Project> {
    const row = await findProject(this.storage.db, id);
    if (!row) throw notFound(`Project ${id} not found`);
    return toProject(row);
  }
}

function toProjectInfo(row: ProjectRow): ProjectInfo {
  const project = toProject(row);
  return {
    id: project.id,
    name: project.name,
    repository: project.repository,
    baseBranch: project.baseBranch,
    model: projectModel(project),
    createdAt: project.createdAt,
  };
}

/** Remote URLs are kept as given; anything else is a local path, stored absolute. */
function normaliseRepository(repository: string, cwd: string): string {
  const value = repository.trim();
  if (!value) throw invalid('Repository must not be empty: give a git URL or a local path');
  if (/^(https?|ssh|git|file):\/\//.test(value) || /^[\w.-]+@[\w.-]+:/.test(value)) {
    if (/^https?:\/\/[^/]*@/.test(value)) {
      throw invalid('Put credentials in the project settings, not in the repository URL');
    }
    return value;
  }
  return path.resolve(cwd, value);
}

// The subset of git's ref-name rules that matters for a branch a person types.
function validateBranch(branch: string): string {
  const value = branch.trim();
  if (!value || !/^[\w./-]+$/.test(value) || /(^[./-]|\.\.|\/\/|[./]$|\.lock$|@\{)/.test(value)) {
    throw invalid(`"${branch}" is not a valid branch name`);
  }
  return value;
}
