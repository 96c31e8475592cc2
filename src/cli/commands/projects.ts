import { withServices } from '../context.ts';
import { print, table } from '../output.ts';

export async function createProjectCommand(options: {
  name: string;
  repo: string;
  ref?: string;
  json: boolean;
}) {
  const project = await withServices((s) =>
    s.projects.create({ name: options.name, repository: options.repo, baseBranch: options.ref }),
  );
  print(
    options.json,
    project,
    (p) => `Created project ${p.id} (${p.name}, ${p.repository} @ ${p.baseBranch})`,
  );
}

export async function listProjectsCommand(options: { json: boolean }) {
  const projects = await withServices((s) => s.projects.list());
  print(options.json, projects, (list) =>
    table(
      ['ID', 'NAME', 'REPOSITORY', 'BRANCH', 'CREATED'],
      list.map((p) => [p.id, p.name, p.repository, p.baseBranch, p.createdAt]),
    ),
  );
}
