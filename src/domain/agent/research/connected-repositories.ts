import type { GitCredentials } from '../code-host.ts';
import type { SourceLog } from './source-log.ts';

/** A connected repository as a project stores it (see domain/projects/context-repositories.ts). */
export interface ContextRepositoryEntry {
  name: string;
  repository: string;
  ref: string;
}

/** A connected repository opened for one turn: mirrored, at the commit the turn reads. */
export interface ConnectedRepository {
  name: string;
  repository: string;
  ref: string;
  commit: string;
  /** The file at `commit` on its code host, for the pull request's Sources; null when there is none. */
  fileUrl(path: string): string | null;
}

/** A file of a connected repository at its commit: regular files only, skipped ones left out. */
export interface ContextFile {
  path: string;
  size: number;
}

export interface ContextSearchRequest {
  /** A JavaScript regular expression (searched as PCRE, which reads the common forms alike). */
  pattern: string;
  caseInsensitive: boolean;
  /** A directory or file to search, relative to the repository root; absent: all of it. */
  path: string | undefined;
  /** Kept when it matches the path relative to `path`. */
  matches: (relative: string) => boolean;
  maxMatches: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

export interface ContextSearchResult {
  matches: Array<{ file: string; line: number; text: string }>;
  more: boolean;
}

/**
 * The connected repositories' files, read from their mirrors at the commit a turn opened and
 * never written: there is no working copy to write to. Implemented over git
 * (src/integrations/git/context-repositories.ts).
 */
export interface ContextFilesPort {
  /**
   * Mirrors (fetching at most every few minutes) each repository and resolves its branch to a
   * commit, or to `pinned[name]` when given. A repository that cannot be fetched is reported in
   * `unavailable` (the turn goes on without it), never thrown.
   */
  open(
    projectId: string,
    entries: readonly ContextRepositoryEntry[],
    options: {
      credentialsFor: (repository: string) => GitCredentials | null;
      pinned?: ReadonlyMap<string, string>;
      signal?: AbortSignal;
    },
  ): Promise<{ repositories: ConnectedRepository[]; unavailable: Array<{ name: string; reason: string }> }>;
  /** Its regular files with their sizes, sorted, without vendored folders and what its .gitignore names. */
  list(repository: ConnectedRepository): Promise<ContextFile[]>;
  /** A text file's content; `binary` or `too-large` when it cannot be shown; null when absent. */
  read(
    repository: ConnectedRepository,
    path: string,
    maxBytes: number,
  ): Promise<string | 'binary' | 'too-large' | null>;
  search(repository: ConnectedRepository, request: ContextSearchRequest): Promise<ContextSearchResult>;
}

/**
 * A turn's connected repositories, as the list, read and search tools see them: read from
 * their mirrors at the turn's commit, never written (no write tool takes `repository`). Reads
 * are recorded in `sources` for the pull request.
 */
export interface ConnectedContext {
  repositories: readonly ConnectedRepository[];
  files: ContextFilesPort;
  sources: SourceLog;
}
