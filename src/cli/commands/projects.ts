import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { invalid } from '../../domain/errors.ts';
import { CODE_HOST_KINDS, type CodeHostKind } from '../../domain/projects/code-host-settings.ts';
import { usd } from '../../domain/projects/monthly-budget.ts';
import type { ProjectSettingsChange } from '../../domain/projects/project-settings.ts';
import { withServices } from '../context.ts';
import { cliIo } from '../io.ts';
import { print, table, warn } from '../output.ts';
import { readStdin } from '../stdin.ts';

export async function createProjectCommand(options: {
  name: string;
  repo: string;
  ref?: string;
  json: boolean;
}) {
  const project = await withServices(options, (s) =>
    s.projects.create({ name: options.name, repository: options.repo, baseBranch: options.ref }),
  );
  warn(options.json, project.warnings);
  print(
    options.json,
    project,
    (p) => `Created project ${p.id} (${p.name}, ${p.repository} @ ${p.baseBranch})`,
  );
}

/** Deletes a project and all it owns, after confirmation (typed on a terminal, or --yes). */
export async function deleteProjectCommand(projectId: string, options: { yes: boolean; json: boolean }) {
  const deleted = await withServices(options, async (s) => {
    const footprint = await s.projectRemoval.describe(projectId);
    if (!options.yes) {
      const { project, jobs, keys } = footprint;
      if (!cliIo().stdin.isTTY) {
        throw invalid(`Refusing to delete project ${projectId} without confirmation: add --yes`);
      }
      const prompt = createInterface({ input: cliIo().stdin, output: process.stderr });
      const answer = await prompt.question(
        `Delete project ${project.id} (${project.name}, ${project.repository}) with its ${jobs} job(s), ${keys} API key(s), working copies and analytics? This cannot be undone. Type the project id to confirm: `,
      );
      prompt.close();
      if (answer.trim() !== project.id) throw invalid('Not confirmed: nothing was deleted');
    }
    return s.projectRemoval.delete(projectId);
  });
  print(
    options.json,
    { deleted: deleted.project.id, jobs: deleted.jobs, keys: deleted.keys },
    (d) =>
      `Deleted project ${d.deleted} with ${d.jobs} job(s), ${d.keys} API key(s), its working copies and analytics`,
  );
}

export async function listProjectsCommand(options: { json: boolean }) {
  const projects = await withServices(options, (s) => s.projects.list());
  print(options.json, projects, (list) =>
    table(
      ['ID', 'NAME', 'REPOSITORY', 'BRANCH', 'CREATED'],
      list.map((p) => [p.id, p.name, p.repository, p.baseBranch, p.createdAt]),
    ),
  );
}

export interface UpdateProjectOptions {
  repo?: string;
  ref?: string;
  model?: string;
  clearModel?: boolean;
  draft?: boolean;
  webResearch?: boolean;
  monthlyBudget?: string;
  clearMonthlyBudget?: boolean;
  host?: string;
  apiUrl?: string;
  hostRepo?: string;
  tokenStdin?: boolean;
  githubAppId?: string;
  githubAppInstallation?: string;
  githubAppKeyFile?: string;
  clearCredentials?: boolean;
  json: boolean;
}

/** Changes a project's model, draft setting and code host; credentials are stored encrypted and never printed. */
export async function updateProjectCommand(projectId: string, options: UpdateProjectOptions) {
  if (options.host !== undefined && !(CODE_HOST_KINDS as readonly string[]).includes(options.host)) {
    throw invalid(`--host must be one of ${CODE_HOST_KINDS.join(', ')}`);
  }
  const change: ProjectSettingsChange = {};
  if (options.clearModel) change.model = null;
  else if (options.model !== undefined) change.model = options.model;
  if (options.draft !== undefined) change.draft = options.draft;
  if (options.webResearch !== undefined) change.webResearch = options.webResearch;
  if (options.clearMonthlyBudget) change.monthlyBudgetUsd = null;
  else if (options.monthlyBudget !== undefined) {
    const budget = Number(options.monthlyBudget.replace(/^\$/, ''));
    if (options.monthlyBudget.trim() === '' || !Number.isFinite(budget)) {
      throw invalid(
        `--monthly-budget must be a number of US dollars, e.g. 50 (got "${options.monthlyBudget}")`,
      );
    }
    change.monthlyBudgetUsd = budget;
  }
  if (options.host !== undefined) change.host = options.host as CodeHostKind;
  if (options.apiUrl !== undefined) change.apiUrl = options.apiUrl;
  if (options.hostRepo !== undefined) change.hostRepository = options.hostRepo;
  if (options.clearCredentials) change.credentials = null;
  if (options.tokenStdin) {
    // Read from stdin, never an argument: arguments show in `ps` and shell history.
    const token = (await readStdin()).trim();
    if (!token)
      throw invalid(
        '--token-stdin read nothing: pipe the token in, e.g. docwright projects update … --token-stdin < token.txt',
      );
    change.credentials = { token };
  } else if (options.githubAppId !== undefined) {
    if (options.githubAppInstallation === undefined || options.githubAppKeyFile === undefined) {
      throw invalid(
        'A GitHub App needs --github-app-id, --github-app-installation and --github-app-key-file',
      );
    }
    const installationId = Number(options.githubAppInstallation);
    if (!Number.isSafeInteger(installationId) || installationId <= 0) {
      throw invalid('--github-app-installation must be the numeric installation id');
    }
    const privateKey = await readFile(options.githubAppKeyFile, 'utf8').catch(() => {
      throw invalid(`Cannot read the GitHub App private key file ${options.githubAppKeyFile}`);
    });
    change.credentials = { appId: options.githubAppId, privateKey, installationId };
  }
  const { settings, project, spend, warnings } = await withServices(options, async (s) => {
    const moved =
      options.repo !== undefined || options.ref !== undefined
        ? await s.projects.relocate(projectId, { repository: options.repo, baseBranch: options.ref })
        : null;
    const service = s.projectSettings;
    const settings =
      Object.keys(change).length === 0
        ? await service.show(projectId)
        : await service.update(projectId, change);
    const project = moved ?? (await s.projects.get(projectId));
    const spend = await service.monthlySpend(projectId, s.clock());
    return { settings, project, spend, warnings: moved?.warnings ?? [] };
  });
  warn(options.json, warnings);
  const shown = {
    ...settings,
    repository: project.repository,
    baseBranch: project.baseBranch,
    spend,
    warnings,
  };
  print(options.json, shown, (v) =>
    [
      `Project ${v.projectId}`,
      `  repository:   ${v.repository} @ ${v.baseBranch}`,
      `  model:        ${v.model ?? '(default)'}`,
      `  pull requests: ${v.draft ? 'draft' : 'ready for review'}`,
      `  web research: ${v.webResearch ? 'on (the agent may read web pages)' : 'off'}`,
      `  budget:       ${v.monthlyBudgetUsd === null ? '(none)' : `${usd(v.monthlyBudgetUsd)} a month`}; spent ${usd(v.spend.spentUsd)} in ${v.spend.month} (UTC, estimated)${v.spend.unpricedTurns > 0 ? ` and ${v.spend.unpricedTurns} turn(s) on models without a price` : ''}${v.spend.budgetSpent ? ': budget spent, new turns are refused' : ''}`,
      `  code host:    ${v.codeHost ? v.codeHost.kind : '(none: local review for local repositories)'}`,
      ...(v.codeHost?.apiUrl ? [`  API URL:      ${v.codeHost.apiUrl}`] : []),
      ...(v.codeHost?.repository ? [`  host repo:    ${v.codeHost.repository}`] : []),
      ...(v.codeHost && v.codeHost.kind !== 'local'
        ? [`  credentials:  ${v.codeHost.credentials === 'stored' ? 'stored (encrypted)' : 'none'}`]
        : []),
    ].join('\n'),
  );
}
