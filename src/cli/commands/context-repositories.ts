import { withServices } from '../context.ts';
import { print, table, warn } from '../output.ts';

/**
 * Connects a source repository to a project, checked like the project's own. Any path on this
 * machine may be named: the command line runs with the server's own rights.
 */
export async function addContextRepositoryCommand(
  projectId: string,
  options: { name: string; repo: string; ref?: string; json: boolean },
) {
  const connected = await withServices(options, (s) =>
    s.contextRepositories.add(projectId, { name: options.name, repository: options.repo, ref: options.ref }),
  );
  warn(options.json, connected.warnings);
  print(
    options.json,
    connected,
    (r) => `Connected ${r.name} (${r.repository} @ ${r.ref}) to project ${projectId}`,
  );
}

export async function listContextRepositoriesCommand(projectId: string, options: { json: boolean }) {
  const repositories = await withServices(options, (s) => s.contextRepositories.list(projectId));
  print(options.json, repositories, (list) =>
    table(
      ['NAME', 'REPOSITORY', 'BRANCH', 'CONNECTED'],
      list.map((r) => [r.name, r.repository, r.ref, r.createdAt]),
    ),
  );
}

export async function removeContextRepositoryCommand(
  projectId: string,
  options: { name: string; json: boolean },
) {
  await withServices(options, (s) => s.contextRepositories.remove(projectId, options.name));
  print(
    options.json,
    { removed: options.name, projectId },
    (r) => `Disconnected ${r.removed} from project ${r.projectId}`,
  );
}
