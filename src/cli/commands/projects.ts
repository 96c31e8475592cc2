import { readFile } from 'node:fs/promises';
import { CODE_HOST_KINDS, type CodeHostKind } from '../../domain/agent/code-host.ts';
import { invalid } from '../../domain/errors.ts';
import type { ProjectSettingsChange } from '../../domain/projects/project-settings.ts';
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

export interface UpdateProjectOptions {
  model?: string;
  clearModel?: boolean;
  draft?: boolean;
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
  const settings = await withServices(async (s) => {
    const service = s.projectSettings;
    return Object.keys(change).length === 0 ? service.show(projectId) : service.update(projectId, change);
  });
  print(options.json, settings, (v) =>
    [
      `Project ${v.projectId}`,
      `  model:        ${v.model ?? '(default)'}`,
      `  pull requests: ${v.draft ? 'draft' : 'ready for review'}`,
      `  code host:    ${v.codeHost ? v.codeHost.kind : '(none: local review for local repositories)'}`,
      ...(v.codeHost?.apiUrl ? [`  API URL:      ${v.codeHost.apiUrl}`] : []),
      ...(v.codeHost?.repository ? [`  repository:   ${v.codeHost.repository}`] : []),
      ...(v.codeHost && v.codeHost.kind !== 'local'
        ? [`  credentials:  ${v.codeHost.credentials === 'stored' ? 'stored (encrypted)' : 'none'}`]
        : []),
    ].join('\n'),
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
