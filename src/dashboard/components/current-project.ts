const STORAGE_KEY = 'docwright.project';

/** The project a path is about: `/projects/{id}/…`. */
export function projectIdFromPath(path: string): string | null {
  const match = /^\/projects\/([^/]+)\/./.exec(path);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

/** The section of a project's path (`keys` in `/projects/p/keys`), to keep it when switching projects. */
export function sectionFromPath(path: string): string | null {
  return /^\/projects\/[^/]+\/([^/]+)/.exec(path)?.[1] ?? null;
}

export const projectPath = (projectId: string, section = 'jobs') =>
  `/projects/${encodeURIComponent(projectId)}/${section}`;

export function rememberProject(projectId: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, projectId);
  } catch {
    // Storage refused: the dashboard then opens the first project.
  }
}

export function lastProject(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}
