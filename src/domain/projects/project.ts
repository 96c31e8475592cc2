import type { ProjectRow } from '../../storage/schema.ts';

/** A project as the domain sees it: its stored row, with its settings parsed once. */
export interface Project {
  id: string;
  name: string;
  /** A git URL, or an absolute path on this machine. */
  repository: string;
  baseBranch: string;
  createdAt: string;
  settings: ProjectSettings;
}

/**
 * The per-project settings object (stored as JSON in `projects.settings`): `model`, `draft`,
 * `monthlyBudgetUsd`, `webResearch` and `codeHost` (whose credentials are sealed, see
 * ProjectSettingsService). Keys this version does not know are kept as they are.
 */
export interface ProjectSettings {
  model?: string;
  draft?: boolean;
  codeHost?: unknown;
  /** USD the project's turns may spend per calendar month (UTC); absent: no budget. */
  monthlyBudgetUsd?: number;
  /** The agent may read web pages (its fetch_url tool); absent: it may not. */
  webResearch?: boolean;
  [setting: string]: unknown;
}

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    repository: row.repository,
    baseBranch: row.base_branch,
    createdAt: row.created_at,
    settings: readProjectSettings(row.settings),
  };
}

/** The one reader of the stored settings JSON; unreadable settings read as none. */
export function readProjectSettings(json: string): ProjectSettings {
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as ProjectSettings;
  } catch {
    // fall through: unreadable settings start again empty rather than blocking every change
  }
  return {};
}

/** Whether the project lets its agent read web pages (fetch_url): off unless set. */
export function webResearchAllowed(settings: ProjectSettings): boolean {
  return settings.webResearch === true;
}

/** The model a project asks for, or null to use the configured default. */
export function projectModel(project: Project): string | null {
  return typeof project.settings.model === 'string' ? project.settings.model : null;
}
