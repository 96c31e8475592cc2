import type { LanguageModel, ToolSet } from 'ai';
import type { Logger } from 'pino';
import { DomainError } from '../errors.ts';
import type { ConversationMessage } from '../jobs/conversation.ts';
import type { TurnSource } from '../jobs/turn-sources.ts';
import { type Project, webResearchAllowed } from '../projects/project.ts';
import type {
  Agent,
  AgentMessage,
  AgentTurnInput,
  AgentTurnResult,
  SourcePullRequest,
  TokenUsage,
} from './agent.ts';
import type { CodeHost, GitCredentials, PullRequestRef } from './code-host.ts';
import { runAgentLoop } from './llm/run-agent-loop.ts';
import { repositoryInstructions, systemPromptWith } from './llm/system-prompt.ts';
import { MAX_FINDINGS_LISTED, pullRequestBody } from './pull-request-body.ts';
import { type ContextDeps, openContext } from './research/open-context.ts';
import { SourceLog } from './research/source-log.ts';
import type { WebReader } from './research/web-reader.ts';
import {
  type BaselineFindings,
  compareFindings,
  createDocumentationTools,
  type DocsTree,
  formatFindings,
  type ValidationFinding,
  validateDocumentation,
  type WebResearch,
} from './tools/index.ts';

/** Why a job cannot run without a model, and how to fix it. */
export const NO_MODEL_REASON =
  'No model configured: set DOCWRIGHT_MODEL (for example anthropic:claude-sonnet-4-5 or openai-compatible:qwen3-coder) and the provider API key, restart Docwright, then send a follow-up message to this job.';

/** What the agent needs from git: a working copy per job, commits, pushes (see integrations/git). */
export interface WorkspacePort {
  /** Registers the job's working copy; its files may still be being written until `ready`. */
  begin(
    req: WorkspaceRequest,
    signal?: AbortSignal,
  ): Promise<{ dir: string; continued: boolean; startSha: string; ready: Promise<void> }>;
  /** A regular file at `sha`, cut to `maxBytes`, or null (absent or not a regular file). */
  readCommittedFile(projectId: string, sha: string, file: string, maxBytes: number): Promise<string | null>;
  commitAll(dir: string, message: string): Promise<{ sha: string; files: string[] } | null>;
  /** The files where the job's branch left its base branch, to tell the job's own findings apart. */
  baseTree(req: WorkspaceRequest, startSha: string): Promise<DocsTree>;
  push(req: WorkspaceRequest, dir: string, signal?: AbortSignal): Promise<void>;
  remove(req: WorkspaceRequest): Promise<void>;
}

export interface WorkspaceRequest {
  projectId: string;
  jobId: string;
  /** A git URL (https://, ssh://, git@host:path) or an absolute path on this machine. */
  repository: string;
  baseBranch: string;
  branch: string;
  credentials: GitCredentials | null;
}

export interface DocumentationAgentDeps {
  workspaces: WorkspacePort;
  /** The model behind `provider:model-id`; throws a clear Error when it cannot be used. */
  modelFor(spec: string): LanguageModel;
  /** The project's code host for one job; throws a DomainError when it is not configured. */
  codeHostFor(project: Project, job: { id: string; repository: string }): CodeHost;
  /** Whether a project's pull requests start as drafts. */
  draftFor(project: Project): boolean;
  limits: { maxSteps: number; maxTokens: number; maxTurnSeconds: number };
  maxRetries: number;
  logger: Logger;
  /** The projects' connected repositories; absent: the agent reads the docs repository only. */
  context?: ContextDeps;
  /** Reads web pages for fetch_url, offered to projects that allow web research. */
  webReader?: WebReader;
}

/**
 * The documentation agent: prepares the job's working copy, runs the model with the file
 * tools until it finishes, validates, and when files changed commits, pushes and opens (or
 * updates) the pull request. Secrets stay on this side: the model sees only the repository
 * and the conversation, never a token.
 */
export class DocumentationAgent implements Agent {
  private readonly deps: DocumentationAgentDeps;

  constructor(deps: DocumentationAgentDeps) {
    this.deps = deps;
  }

  async runTurn(input: AgentTurnInput): Promise<AgentTurnResult> {
    const { job, project, turn, signal } = input;
    if (job.model === null) return failed(NO_MODEL_REASON);
    let model: LanguageModel;
    let host: CodeHost;
    try {
      model = this.deps.modelFor(job.model);
      host = this.deps.codeHostFor(project, { id: job.id, repository: job.repository });
    } catch (error) {
      return failed(errorMessage(error));
    }
    const log = this.deps.logger.child({ jobId: job.id, turn: turn.seq });
    const request: WorkspaceRequest = {
      projectId: job.projectId,
      jobId: job.id,
      repository: job.repository,
      baseBranch: job.baseBranch,
      branch: job.branch,
      credentials: (await host.gitCredentials?.()) ?? null,
    };

    const timer = new PhaseTimer();
    const sources = new SourceLog();
    // The connected repositories are fetched while the docs working copy is prepared.
    const [workspace, context] = await Promise.all([
      this.deps.workspaces.begin(request, signal),
      openContext(
        this.deps.context,
        {
          projectId: job.projectId,
          docsRepository: job.repository,
          credentials: request.credentials,
          sources,
          pullRequests: job.sources ?? [],
          signal,
        },
        log,
      ),
    ]);
    timer.mark('prepareMs');
    try {
      // The model is asked while the working copy's files are still being written: its
      // first answer takes longer than the checkout, and every tool waits for the files.
      // The base commit is validated meanwhile too: its pages, parsed then, are the working
      // copy's pages, so the model's first validate finds them parsed.
      const baseline = this.baselineFindings(request, workspace.startSha, log);
      void baseline();
      const web: WebResearch | undefined =
        this.deps.webReader && webResearchAllowed(project.settings)
          ? { reader: this.deps.webReader, sources }
          : undefined;
      const loop = await runAgentLoop({
        model,
        system: systemPromptWith(await this.instructions(job.projectId, workspace.startSha), {
          connected: context.promptSection,
          webResearch: web !== undefined,
        }),
        history: input.history,
        prompt: promptFor(turn, workspace.continued),
        tools: afterReady(
          createDocumentationTools(workspace.dir, undefined, {
            baseline,
            ...(context.connected ? { connected: context.connected } : {}),
            ...(web ? { web } : {}),
          }),
          workspace.ready,
        ),
        finishSources: context.connected !== undefined || web !== undefined,
        limits: {
          maxSteps: this.deps.limits.maxSteps,
          maxTokens: this.deps.limits.maxTokens,
          maxDurationMs: this.deps.limits.maxTurnSeconds * 1000,
        },
        signal,
        retry: { maxRetries: this.deps.maxRetries },
        logger: log,
        onMessage: (message) => {
          timer.once('firstReplyMs');
          input.onProgress?.(message);
        },
      });
      timer.mark('loopMs');
      await workspace.ready;
      if (loop.status === 'failed') {
        return {
          outcome: 'failed',
          reason: loop.reason ?? 'The model call failed',
          usage: loop.usage,
          messages: loop.messages,
        };
      }
      // Only what this job's changes broke goes to the pull request: a site's old problems are
      // counted, not listed, or the model and the reviewer would chase what nobody asked about.
      const findings = compareFindings(await validateDocumentation(workspace.dir), await baseline());
      timer.mark('validateMs');
      const title = loop.pullRequest?.title ?? titleFrom(turn.prompt);
      const commit = await this.deps.workspaces.commitAll(workspace.dir, commitMessage(title, loop.summary));
      const messages: AgentMessage[] = [...loop.messages];
      const research = sources.select(loop.sources);
      // No new commit and no branch pushed before: nothing to review.
      if (!commit && !workspace.continued) {
        return succeeded(loop.summary, [], job.prLink, loop.usage, messages, research);
      }
      if (commit) await this.deps.workspaces.push(request, workspace.dir, signal);
      const body = pullRequestBody({
        jobId: job.id,
        summary: loop.pullRequest?.body ?? loop.summary,
        findings,
        prompts: [...userPrompts(input.history), turn.prompt],
        sources: job.sources ?? [],
        research,
      });
      const pr = await this.publish(
        host,
        { branch: job.branch, base: job.baseBranch, title, body },
        project,
        {
          // An automation's follow-up that changed nothing still adds its source pull request to the list.
          updateExisting: commit !== null || (job.sources?.length ?? 0) > 0,
          draft: job.draft ?? null,
        },
      );
      await requestSourceAuthors(host, pr, job.sources ?? [], log);
      if (!commit) {
        // The branch was pushed by an earlier turn or attempt: make sure it is reviewable.
        return succeeded(loop.summary, [], pr.url, loop.usage, messages, research);
      }
      const notes: AgentMessage[] = [
        {
          role: 'note',
          text: `Committed ${commit.files.length} file(s) as ${commit.sha.slice(0, 12)}; pull request: ${pr.url}`,
        },
      ];
      if (findings.introduced.length > 0) {
        notes.push({
          role: 'note',
          text: `Validation findings introduced by this change:\n${formatFindings(findings.introduced.slice(0, MAX_FINDINGS_LISTED))}`,
        });
      }
      for (const note of notes) input.onProgress?.(note);
      messages.push(...notes);
      timer.mark('publishMs');
      log.info({ files: commit.files.length, prLink: pr.url, timings: timer.marks }, 'turn published');
      return succeeded(loop.summary, commit.files, pr.url, loop.usage, messages, research);
    } finally {
      // The job's working copy is given back: parked for the project's next job to reuse
      // (rewriting only the files that differ), or deleted when enough are parked already.
      await this.deps.workspaces
        .remove(request)
        .catch((error: unknown) => log.warn({ err: error }, 'removing the working copy failed'));
    }
  }

  /**
   * The findings at the job's base commit, computed once per turn (started with the turn, used
   * by the validate tool and before committing). If the base cannot be read, every finding counts.
   */
  private baselineFindings(request: WorkspaceRequest, startSha: string, log: Logger): BaselineFindings {
    let findings: Promise<ValidationFinding[]> | null = null;
    return () => {
      findings ??= this.deps.workspaces
        .baseTree(request, startSha)
        .then((tree) => validateDocumentation(tree))
        .catch((error: unknown) => {
          log.warn({ err: error }, 'could not validate the base commit; reporting every finding');
          return [];
        });
      return findings;
    };
  }

  /** The repository's own instructions at the turn's starting commit. */
  private instructions(projectId: string, sha: string): Promise<{ file: string; text: string } | null> {
    return repositoryInstructions((file, maxBytes) =>
      this.deps.workspaces.readCommittedFile(projectId, sha, file, maxBytes),
    );
  }

  /** Updates the branch's open pull request, or opens one; a retried turn finds the first. */
  private async publish(
    host: CodeHost,
    pr: { branch: string; base: string; title: string; body: string },
    project: Project,
    options: { updateExisting: boolean; draft: boolean | null },
  ): Promise<PullRequestRef> {
    const existing = await host.findOpenPullRequest(pr.branch);
    if (existing) {
      if (options.updateExisting) await host.updatePullRequest(existing, { body: pr.body });
      return existing;
    }
    // The job's own choice (an automation's) wins over the project's setting.
    return host.createPullRequest({ ...pr, draft: options.draft ?? this.deps.draftFor(project) });
  }
}

/**
 * The authors of the source pull requests an automation's job documents are asked to review
 * its pull request (GitHub reviewers, GitLab assignees). Best effort: a host that refuses
 * (the author cannot review their own pull request, is no collaborator, is a bot) is logged.
 */
async function requestSourceAuthors(
  host: CodeHost,
  pr: PullRequestRef,
  sources: SourcePullRequest[],
  log: Logger,
): Promise<void> {
  const logins = [...new Set(sources.flatMap((s) => (s.author ? [s.author] : [])))];
  if (logins.length === 0 || !host.requestReviewers) return;
  try {
    await host.requestReviewers(pr, logins);
  } catch (error) {
    log.warn({ prLink: pr.url, logins, error: errorMessage(error) }, 'requesting reviewers failed');
  }
}

/** Tools that wait until the working copy's files are written before they run. */
function afterReady(tools: ToolSet, ready: Promise<void>): ToolSet {
  const waiting: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    waiting[name] = execute
      ? {
          ...tool,
          execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
            await ready;
            return execute(input, options);
          },
        }
      : tool;
  }
  return waiting;
}

function failed(reason: string): AgentTurnResult {
  return { outcome: 'failed', reason, usage: null, messages: [] };
}

function succeeded(
  summary: string,
  changedFiles: string[],
  prLink: string | null,
  usage: TokenUsage,
  messages: AgentMessage[],
  sources: TurnSource[],
): AgentTurnResult {
  return { outcome: 'succeeded', summary, changedFiles, prLink, usage, messages, sources };
}

function promptFor(turn: AgentTurnInput['turn'], continued: boolean): string {
  const notes: string[] = [];
  if (turn.attempt > 1) {
    notes.push(
      '[Docwright] An earlier attempt at this request was interrupted; the working copy was reset, so start again.',
    );
  }
  if (continued)
    notes.push(
      "[Docwright] The working copy continues this job's branch, with the changes of earlier turns.",
    );
  return notes.length ? `${turn.prompt}\n\n${notes.join('\n')}` : turn.prompt;
}

function userPrompts(history: ConversationMessage[]): string[] {
  return history.filter((m) => m.role === 'user' && m.text !== null).map((m) => m.text as string);
}

/** A pull request title from the prompt when the model gave none. */
export function titleFrom(prompt: string): string {
  const line = prompt.trim().split('\n')[0]?.trim() ?? '';
  const title = line.length > 72 ? `${line.slice(0, 71).trimEnd()}…` : line;
  return title || 'Documentation update';
}

function commitMessage(title: string, summary: string): string {
  const body = summary.trim();
  return body && body !== title ? `${title}\n\n${body}` : title;
}

function errorMessage(error: unknown): string {
  if (error instanceof DomainError || error instanceof Error) return error.message;
  return String(error);
}

/** Milliseconds spent in each phase of a turn, for the turn's log line. */
class PhaseTimer {
  readonly marks: Record<string, number> = {};
  private last = performance.now();
  private readonly start = this.last;

  mark(name: string): void {
    const now = performance.now();
    this.marks[name] = Math.round(now - this.last);
    this.last = now;
  }

  /** Time since the turn started, recorded the first time only. */
  once(name: string): void {
    if (!(name in this.marks)) this.marks[name] = Math.round(performance.now() - this.start);
  }
}
