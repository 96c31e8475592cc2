import { type AnalyticsService, normaliseOrigin } from '../analytics/analytics-service.ts';
import type { SaltRotation } from '../analytics/identity.ts';
import type { AnalyticsSettings } from '../analytics/store.ts';
import type { Clock } from '../clock.ts';
import type { CodeHostKind } from './code-host-settings.ts';
import type { MonthlySpend } from './monthly-budget.ts';
import type {
  ProjectSettingsChange,
  ProjectSettingsService,
  ProjectSettingsView,
} from './project-settings.ts';

/** Deployment settings a project's page shows but cannot change (they are configuration). */
export interface ServerSettings {
  /** DOCWRIGHT_MODEL: the model of projects that name none. */
  defaultModel: string | null;
  /** DOCWRIGHT_ANALYTICS_SALT_ROTATION. */
  saltRotation: SaltRotation;
  /** DOCWRIGHT_PUBLIC_URL. */
  publicUrl: string;
}

/** Every setting of a project, as one page shows them. */
export interface SettingsOverview {
  agent: Omit<ProjectSettingsView, 'projectId'>;
  analytics: AnalyticsSettings;
  server: ServerSettings;
  /** This calendar month's estimated spend (UTC) against the budget: read-only. */
  spend: MonthlySpend;
}

export interface SettingsOverviewChange {
  agent?: {
    model?: string | null | undefined;
    draft?: boolean | undefined;
    webResearch?: boolean | undefined;
    monthlyBudgetUsd?: number | null | undefined;
    host?: CodeHostKind | null | undefined;
    apiUrl?: string | null | undefined;
    hostRepository?: string | null | undefined;
    /** Write-only: stored encrypted; null forgets the stored credentials. */
    token?: string | null | undefined;
  };
  analytics?: Partial<AnalyticsSettings>;
}

/**
 * A project's agent settings (main database), analytics settings (the analytics store) and
 * the server's own, read and changed together. The two stores cannot share a transaction,
 * so a change is checked whole first: a refused change changes nothing.
 */
export class ProjectSettingsOverview {
  private readonly agent: ProjectSettingsService;
  private readonly analytics: AnalyticsService;
  private readonly server: ServerSettings;
  private readonly clock: Clock;
  constructor(options: {
    agent: ProjectSettingsService;
    analytics: AnalyticsService;
    server: ServerSettings;
    clock: Clock;
  }) {
    this.agent = options.agent;
    this.analytics = options.analytics;
    this.server = options.server;
    this.clock = options.clock;
  }

  async show(projectId: string): Promise<SettingsOverview> {
    const agent = await this.agent.show(projectId);
    return this.overview(agent, await this.analytics.settings(projectId));
  }

  /** This calendar month's spend (UTC) against the project's budget. */
  spend(projectId: string): Promise<MonthlySpend> {
    return this.agent.monthlySpend(projectId, this.clock());
  }

  async update(projectId: string, change: SettingsOverviewChange): Promise<SettingsOverview> {
    // Origins are the one analytics value that can be refused: check them before anything is saved.
    change.analytics?.allowedOrigins?.forEach(normaliseOrigin);
    const agentChange = toAgentChange(change.agent ?? {});
    const agent =
      Object.keys(agentChange).length === 0
        ? await this.agent.show(projectId)
        : await this.agent.update(projectId, agentChange);
    const analytics =
      change.analytics === undefined
        ? await this.analytics.settings(projectId)
        : await this.analytics.updateSettings(projectId, change.analytics);
    return this.overview(agent, analytics);
  }

  private async overview(
    agent: ProjectSettingsView,
    analytics: AnalyticsSettings,
  ): Promise<SettingsOverview> {
    const { projectId, ...rest } = agent;
    return { agent: rest, analytics, server: this.server, spend: await this.spend(projectId) };
  }
}

function toAgentChange(agent: NonNullable<SettingsOverviewChange['agent']>): ProjectSettingsChange {
  const change: ProjectSettingsChange = {};
  if (agent.model !== undefined) change.model = agent.model;
  if (agent.draft !== undefined) change.draft = agent.draft;
  if (agent.webResearch !== undefined) change.webResearch = agent.webResearch;
  if (agent.monthlyBudgetUsd !== undefined) change.monthlyBudgetUsd = agent.monthlyBudgetUsd;
  if (agent.host !== undefined) change.host = agent.host;
  if (agent.apiUrl !== undefined) change.apiUrl = agent.apiUrl;
  if (agent.hostRepository !== undefined) change.hostRepository = agent.hostRepository;
  if (agent.token !== undefined) change.credentials = agent.token === null ? null : { token: agent.token };
  return change;
}
