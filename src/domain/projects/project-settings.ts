import type { Storage } from '../../storage/database.ts';
import { findProject, updateProject } from '../../storage/queries/projects.ts';
import { invalid, notFound } from '../errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import {
  type CodeHostCredentials,
  type CodeHostKind,
  credentialsContext,
  draftPullRequests,
  parseCredentials,
  type StoredCodeHost,
  storedCodeHost,
} from './code-host-settings.ts';
import { type MonthlySpend, monthlyBudget, monthlySpend } from './monthly-budget.ts';
import { readProjectSettings, toProject, webResearchAllowed } from './project.ts';

/** The largest monthly budget accepted, in USD. */
export const MAX_MONTHLY_BUDGET_USD = 1_000_000_000;

/** Why connecting to a host name or address would be refused (the outgoing-network policy), or null. */
export type HostRefusal = (host: string) => Promise<string | null>;

/** A change to a project's agent settings; `null` clears a value, absent leaves it alone. */
export interface ProjectSettingsChange {
  model?: string | null;
  draft?: boolean;
  /** USD per calendar month (UTC); null: no budget. */
  monthlyBudgetUsd?: number | null;
  host?: CodeHostKind | null;
  apiUrl?: string | null;
  /** The repository's path on the code host (`owner/name`, `group/project`) when the URL does not tell. */
  hostRepository?: string | null;
  credentials?: CodeHostCredentials | null;
  /** Let the agent read web pages (fetch_url). */
  webResearch?: boolean;
}

/** The settings as they may be shown: credentials only as whether they are stored. */
export interface ProjectSettingsView {
  projectId: string;
  model: string | null;
  draft: boolean;
  /** USD per calendar month (UTC); null: no budget. */
  monthlyBudgetUsd: number | null;
  codeHost: {
    kind: CodeHostKind;
    apiUrl: string | null;
    repository: string | null;
    credentials: 'stored' | 'none';
  } | null;
  /** The agent may read web pages (fetch_url). */
  webResearch: boolean;
}

/**
 * Reads and changes the per-project agent settings kept in the project's `settings` JSON:
 * `model`, `draft`, `monthlyBudgetUsd`, `webResearch` and `codeHost`. Credentials are sealed
 * with the SecretBox, bound to the project, before they reach the database, and are never
 * returned.
 */
export class ProjectSettingsService {
  private readonly storage: Storage;
  private readonly box: SecretBox | null;
  private readonly hostRefusal: HostRefusal | null;
  /** Without `hostRefusal`, API URLs are not checked against the outgoing-network policy (tests). */
  constructor(storage: Storage, box: SecretBox | null, hostRefusal: HostRefusal | null = null) {
    this.storage = storage;
    this.box = box;
    this.hostRefusal = hostRefusal;
  }

  async show(projectId: string): Promise<ProjectSettingsView> {
    const row = await findProject(this.storage.db, projectId);
    if (!row) throw notFound(`Project ${projectId} not found`);
    return view(projectId, readProjectSettings(row.settings));
  }

  async update(projectId: string, change: ProjectSettingsChange): Promise<ProjectSettingsView> {
    const apiUrl = typeof change.apiUrl === 'string' ? checkUrl(change.apiUrl) : change.apiUrl;
    if (apiUrl && this.hostRefusal) {
      // Refused up front, as a webhook URL is; each call checks the address it connects to again.
      const refused = await this.hostRefusal(new URL(apiUrl).hostname);
      if (refused) throw invalid(`apiUrl ${apiUrl} cannot be used: ${refused}`);
    }
    return this.storage.db.transaction().execute(async (tx) => {
      const row = await findProject(tx, projectId);
      if (!row) throw notFound(`Project ${projectId} not found`);
      const settings = readProjectSettings(row.settings);

      if (change.model !== undefined) {
        if (change.model === null) delete settings.model;
        else settings.model = checkModel(change.model);
      }
      if (change.draft !== undefined) settings.draft = change.draft;
      if (change.webResearch === true) settings.webResearch = true;
      else if (change.webResearch === false) delete settings.webResearch;
      if (change.monthlyBudgetUsd !== undefined) {
        if (change.monthlyBudgetUsd === null) delete settings.monthlyBudgetUsd;
        else settings.monthlyBudgetUsd = checkBudget(change.monthlyBudgetUsd);
      }

      let host = storedCodeHost(settings);
      if (change.host === null) host = null;
      else if (change.host !== undefined && change.host !== host?.kind) {
        // Credentials belong to one host: switching hosts drops them unless new ones are given.
        host = { kind: change.host };
      }
      const touchesHost =
        change.apiUrl !== undefined ||
        change.hostRepository !== undefined ||
        change.credentials !== undefined;
      if (touchesHost && host === null) {
        const guessed = guessHost(row.repository);
        if (!guessed) throw invalid('Say which code host with --host github|gitlab|local');
        host = { kind: guessed };
      }
      if (host !== null) {
        if (apiUrl !== undefined) setOrDelete(host, 'apiUrl', apiUrl);
        if (change.hostRepository !== undefined) {
          setOrDelete(
            host,
            'repository',
            change.hostRepository === null ? null : checkHostRepository(change.hostRepository),
          );
        }
        if (change.credentials !== undefined) {
          setOrDelete(
            host,
            'credentials',
            change.credentials === null ? null : this.seal(projectId, host.kind, change.credentials),
          );
        }
        if (host.kind === 'local' && (host.apiUrl || host.credentials)) {
          throw invalid('A local repository needs no API URL or credentials');
        }
        settings.codeHost = host;
      } else {
        delete settings.codeHost;
      }
      await updateProject(tx, projectId, { settings: JSON.stringify(settings) });
      return view(projectId, settings);
    });
  }

  /** The project's estimated spend this calendar month (UTC) against its budget. */
  async monthlySpend(projectId: string, now: Date): Promise<MonthlySpend> {
    const row = await findProject(this.storage.db, projectId);
    if (!row) throw notFound(`Project ${projectId} not found`);
    return monthlySpend(this.storage.db, toProject(row), now);
  }

  private seal(projectId: string, kind: CodeHostKind, credentials: CodeHostCredentials): string {
    const checked = parseCredentials(credentials);
    if (kind === 'gitlab' && !('token' in checked))
      throw invalid('GitLab takes an access token, not GitHub App credentials');
    if (!this.box) {
      throw invalid(
        'Cannot store credentials: DOCWRIGHT_SECRET_KEY is not configured. Set it (a passphrase of 16+ characters, or base64:<32 random bytes>, e.g. base64:$(openssl rand -base64 32)) for this command and run the server with the same value: the server needs it to open the credentials.',
      );
    }
    return this.box.seal(JSON.stringify(checked), credentialsContext(projectId));
  }
}

function view(projectId: string, settings: Record<string, unknown>): ProjectSettingsView {
  const host = storedCodeHost(settings);
  return {
    projectId,
    model: typeof settings.model === 'string' ? settings.model : null,
    draft: draftPullRequests(settings),
    monthlyBudgetUsd: monthlyBudget(settings),
    codeHost: host && {
      kind: host.kind,
      apiUrl: host.apiUrl ?? null,
      repository: host.repository ?? null,
      credentials: host.credentials ? 'stored' : 'none',
    },
    webResearch: webResearchAllowed(settings),
  };
}

function setOrDelete<K extends 'apiUrl' | 'repository' | 'credentials'>(
  host: StoredCodeHost,
  key: K,
  value: string | null,
) {
  if (value === null) delete host[key];
  else host[key] = value;
}

function guessHost(repository: string): CodeHostKind | null {
  if (/^(https?:\/\/|ssh:\/\/git@|git@)github\.com[/:]/.test(repository)) return 'github';
  if (/^(https?:\/\/|ssh:\/\/git@|git@)gitlab\.com[/:]/.test(repository)) return 'gitlab';
  return null;
}

function checkModel(model: string): string {
  const value = model.trim();
  if (!/^[a-z][a-z0-9-]*:.+$/.test(value))
    throw invalid(`Model must look like provider:model-id (got "${model}")`);
  return value;
}

function checkBudget(budget: number): number {
  if (!Number.isFinite(budget) || budget < 0 || budget > MAX_MONTHLY_BUDGET_USD) {
    throw invalid(
      `monthlyBudgetUsd must be a number of US dollars from 0 to ${MAX_MONTHLY_BUDGET_USD} (got ${budget}); null removes the budget`,
    );
  }
  return Math.round(budget * 100) / 100;
}

function checkUrl(url: string): string {
  const value = url.trim().replace(/\/+$/, '');
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw invalid(`API URL must be an http:// or https:// URL (got "${url}")`);
  }
  if (new URL(value).username || new URL(value).password)
    throw invalid('Put credentials in --token-stdin, not in the API URL');
  return value;
}

function checkHostRepository(value: string): string {
  const trimmed = value.trim().replace(/^\/+|\/+$/g, '');
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(trimmed))
    throw invalid(`Host repository must look like owner/name (got "${value}")`);
  return trimmed;
}
