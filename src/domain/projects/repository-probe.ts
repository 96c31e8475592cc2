/** What looking at a project's repository found (see RepositoryProbe). */
export type RepositoryProbeResult =
  | { kind: 'ok' }
  /** A local path that does not exist or is not a git repository. */
  | { kind: 'not-a-repository'; detail: string }
  /** The repository answered, without this branch; `branches` are some it has. */
  | { kind: 'missing-branch'; branches: string[] }
  /** A remote on an address the outgoing-network policy refuses: never fetched. */
  | { kind: 'forbidden'; detail: string }
  /** A remote repository that could not be asked (network, or it needs credentials). */
  | { kind: 'unreachable'; detail: string };

/** Checks that a repository exists and has a branch, before a project points at it (git, in integrations/). */
export interface RepositoryProbe {
  probe(repository: string, branch: string): Promise<RepositoryProbeResult>;
}
