import type { Command } from 'commander';

/** Loaded when a `projects context` command runs (see `commands` in program.ts). */
const load = () => import('./commands/context-repositories.ts');

/** `docwright projects context add|list|remove`: the source repositories a project's agent may read. */
export function addContextRepositoryCommands(projects: Command, json: readonly [string, string]): void {
  const context = projects
    .command('context')
    .description(
      "manage a project's connected source repositories: code its documentation agent may read (never change)",
    );
  const project = ['<project-id>', 'the project id (prj_…)'] as const;

  context
    .command('add')
    .description(
      "connect a repository, checked like the project's own (a local path must be a git repository with that branch)",
    )
    .argument(...project)
    .requiredOption(
      '--name <name>',
      'what the agent calls it: lower-case letters, digits, ".", "_" or "-" (at most 63), unique in the project',
    )
    .requiredOption('--repo <url-or-path>', 'git URL or local path of the repository')
    .option('--ref <branch>', 'the branch to read', 'main')
    .option(...json)
    .action(async (projectId, o) =>
      (await load()).addContextRepositoryCommand(projectId, {
        name: o.name,
        repo: o.repo,
        ref: o.ref,
        json: Boolean(o.json),
      }),
    );
  context
    .command('list')
    .description("list a project's connected repositories")
    .argument(...project)
    .option(...json)
    .action(async (projectId, o) =>
      (await load()).listContextRepositoriesCommand(projectId, { json: Boolean(o.json) }),
    );
  context
    .command('remove')
    .description('disconnect a repository (a turn already running keeps what it read)')
    .argument(...project)
    .requiredOption('--name <name>', 'the connected repository name')
    .option(...json)
    .action(async (projectId, o) =>
      (await load()).removeContextRepositoryCommand(projectId, { name: o.name, json: Boolean(o.json) }),
    );
}
