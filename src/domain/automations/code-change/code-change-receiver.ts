import type { Logger } from 'pino';
import { DomainError } from '../../errors.ts';
import type { Automation, CodeChangeTrigger, SourceHost } from '../automation.ts';
import type { AutomationService, StartRunStatus } from '../automation-service.ts';
import { matchesCodeChange } from '../trigger-input.ts';
import { changeContext } from './change-summary.ts';
import { dedupeKeyFor } from './dedupe-key.ts';
import { type HookEvent, parseGitHubEvent, parseGitLabEvent } from './events.ts';
import type { PullRequestChanges, PullRequestReader } from './pull-request-changes.ts';
import { verifyGitHubSignature, verifyGitLabToken } from './signature.ts';

export interface HookDelivery {
  provider: SourceHost;
  projectId: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received: GitHub's signature is over these bytes. */
  rawBody: Buffer;
}

/** One run a delivery started (or found started already). */
export interface HookRun {
  automationId: string;
  runId: string;
  jobId: string | null;
  status: StartRunStatus;
}

/** 202: at least one run started or followed up; 200: nothing new ran, `reason` says why. */
export type HookOutcome =
  | { status: 202; runs: HookRun[] }
  | { status: 200; runs: HookRun[]; reason: string }
  /** The host's API could not be read (the files and diff are needed): the host may redeliver. */
  | { status: 502; error: string };

export interface CodeChangeReceiverDeps {
  automations: Pick<AutomationService, 'codeChangeAutomations' | 'startRun'>;
  /** Reads source pull requests with the project's code host settings. */
  pullRequestReaderFor(projectId: string): Promise<PullRequestReader>;
  logger: Logger;
}

/**
 * The same answer for an unknown project, a project without code-change automations for the
 * host, and a wrong signature: a caller without a secret learns nothing about which exist.
 */
const UNVERIFIED: Record<SourceHost, string> = {
  github: 'X-Hub-Signature-256 does not match the secret of any code-change automation of this project',
  gitlab: 'X-Gitlab-Token does not match the secret of any code-change automation of this project',
};

/**
 * Receives a GitHub or GitLab webhook for a project: verifies it with the secret of each of
 * the project's code-change automations for that host (no match: 401, nothing else is
 * looked at), reads the event, and for a merged pull request into a watched repository and
 * branch reads its files and diff through the host's API, applies each automation's path
 * filters, and starts a run of each automation that matches, deduplicated on the pull
 * request and merge commit.
 */
export class CodeChangeReceiver {
  private readonly deps: CodeChangeReceiverDeps;
  constructor(deps: CodeChangeReceiverDeps) {
    this.deps = deps;
  }

  async receive(delivery: HookDelivery): Promise<HookOutcome> {
    const { provider, projectId, headers, rawBody } = delivery;
    const candidates = await this.deps.automations.codeChangeAutomations(projectId, provider);
    // Every secret is tried, so the time taken does not say which one matched.
    const verified = candidates.filter(({ secret }) =>
      provider === 'github'
        ? verifyGitHubSignature(secret, rawBody, first(headers['x-hub-signature-256']))
        : verifyGitLabToken(secret, first(headers['x-gitlab-token'])),
    );
    if (verified.length === 0) throw new DomainError('unauthenticated', UNVERIFIED[provider]);
    // An automation in its rotation overlap is listed once per accepted secret.
    const automations = [...new Map(verified.map((v) => [v.automation.id, v.automation])).values()];
    const event: HookEvent =
      provider === 'github' ? parseGitHubEvent(headers, rawBody) : parseGitLabEvent(headers, rawBody);
    if (event.kind === 'ignored') return { status: 200, runs: [], reason: event.reason };
    const pr = event.pullRequest;
    const watching = automations.filter((a) =>
      matchesCodeChange(
        { ...a.trigger, paths: [] },
        { repository: pr.repository, baseBranch: pr.baseBranch, changedFiles: [] },
      ),
    );
    if (watching.length === 0) {
      return {
        status: 200,
        runs: [],
        reason: `No code-change automation with this secret watches ${pr.repository} (merged into ${pr.baseBranch})`,
      };
    }
    let changes: PullRequestChanges;
    try {
      const reader = await this.deps.pullRequestReaderFor(projectId);
      changes = await reader.changes({ provider, repository: pr.repository, number: pr.number });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.deps.logger.warn(
        { projectId, provider, repository: pr.repository, number: pr.number, error: message },
        'reading a merged pull request for code-change automations failed',
      );
      return { status: 502, error: `Could not read ${pr.url} through the host's API: ${message}` };
    }
    const paths = changes.files.flatMap((f) => (f.previousPath ? [f.path, f.previousPath] : [f.path]));
    const matching = watching.filter((a) => filesMatch(a, pr.repository, pr.baseBranch, paths));
    if (matching.length === 0) {
      return {
        status: 200,
        runs: [],
        reason: `No file of ${pr.url} matches the path filters of the automation${watching.length === 1 ? '' : 's'} watching ${pr.repository}`,
      };
    }
    const context = changeContext(pr, changes);
    const author = changes.author ?? pr.author;
    const runs: HookRun[] = [];
    for (const automation of matching) {
      const started = await this.deps.automations.startRun(automation, {
        kind: 'code_change',
        dedupeKey: dedupeKeyFor(pr),
        context,
        source: {
          url: pr.url,
          title: pr.title,
          number: pr.number,
          ...(author ? { author } : {}),
          ...(pr.cloneUrl && pr.mergeCommitSha
            ? { repository: { url: pr.cloneUrl, ref: pr.baseBranch, commit: pr.mergeCommitSha } }
            : {}),
        },
      });
      runs.push({
        automationId: automation.id,
        runId: started.run.id,
        jobId: started.jobId,
        status: started.status,
      });
    }
    if (runs.some((r) => r.status === 'started' || r.status === 'followed_up')) return { status: 202, runs };
    const reason = runs.every((r) => r.status === 'duplicate')
      ? `Already received: ${pr.url} merged as ${pr.mergeCommitSha ?? 'this delivery'} started its runs before`
      : 'Over the daily limit of runs: nothing started (the refused runs are listed)';
    return { status: 200, runs, reason };
  }
}

function filesMatch(
  automation: Automation & { trigger: CodeChangeTrigger },
  repository: string,
  baseBranch: string,
  paths: string[],
): boolean {
  return matchesCodeChange(automation.trigger, { repository, baseBranch, changedFiles: paths });
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
