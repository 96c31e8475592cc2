import path from 'node:path';
import type { Storage } from '../../storage/database.ts';
import { findProject, insertProject, listProjects } from '../../storage/queries/projects.ts';
import type { ProjectRow } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { type Project, projectModel, toProject } from './project.ts';

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

export class ProjectService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
  }

  async create(input: NewProject, cwd: string = process.cwd()): Promise<ProjectInfo> {
    const name = input.name.trim();
    if (!name) throw invalid('Project name must not be empty');
    const row: ProjectRow = {
      id: newId('prj'),
      name,
      repository: normaliseRepository(input.repository, cwd),
      base_branch: validateBranch(input.baseBranch ?? 'main'),
      settings: '{}',
      created_at: iso(this.clock()),
    };
    await insertProject(this.storage.db, row);
    return toProjectInfo(row);
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
