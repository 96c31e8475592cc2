import type { Storage } from '../../storage/database.ts';
import { findJobById } from '../../storage/queries/jobs.ts';
import { findProject, insertProject, listProjects, updateProject } from '../../storage/queries/projects.ts';
import type { ProjectRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { type Project, projectModel, toProject } from './project.ts';
import {
  acceptRepository,
  checkRepository,
  type RepositoryOrigin,
  validateBranch,
} from './repository-acceptance.ts';
import type { RepositoryProbe } from './repository-probe.ts';

export type { RepositoryOrigin } from './repository-acceptance.ts';

export interface ProjectInfo {
  id: string;
  name: string;
  repository: string;
  baseBranch: string;
  model: string | null;
  createdAt: string;
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
    const repository = await acceptRepository(input.repository, origin);
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
        : await acceptRepository(change.repository, origin);
    const baseBranch =
      change.baseBranch === undefined ? current.baseBranch : validateBranch(change.baseBranch);
    const moved = change.repository !== undefined || change.baseBranch !== undefined;
    const warnings = moved ? await this.check(repository, baseBranch) : [];
    const row = await updateProject(this.storage.db, id, { name, repository, base_branch: baseBranch });
    if (!row) throw notFound(`Project ${id} not found`);
    return { ...toProjectInfo(row), warnings };
  }

  /** The project a job belongs to (job ids are unique across projects). */
  async projectOfJob(jobId: string): Promise<string> {
    const job = await findJobById(this.storage.db, jobId);
    if (!job) throw notFound(`Job ${jobId} not found`);
    return job.project_id;
  }

  private check(repository: string, baseBranch: string): Promise<string[]> {
    return checkRepository(this.probe, repository, baseBranch);
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
