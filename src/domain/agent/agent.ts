import type { AgentMessage, ConversationMessage, TokenUsage } from '../jobs/conversation.ts';
import type { TurnSource } from '../jobs/turn-sources.ts';
import type { Project } from '../projects/project.ts';

export type { AgentMessage, TokenUsage };

/**
 * The one seam between the job runner and whatever carries out a turn. The runner hands
 * the agent a job, its conversation so far and the turn to run; the agent answers with
 * what happened. It must stop promptly once `signal` aborts (archive, shutdown, lost lease).
 */
export interface Agent {
  runTurn(input: AgentTurnInput): Promise<AgentTurnResult>;
}

export interface AgentTurnInput {
  job: AgentJob;
  project: Project;
  turn: { id: string; seq: number; prompt: string; attempt: number };
  /** Every stored message of earlier turns, oldest first. */
  history: ConversationMessage[];
  signal: AbortSignal;
  /**
   * Told of each thing the agent says or does while the turn runs (assistant text, a tool
   * call with its input and shortened output, a note, each update of its plan), for the job's
   * live events. It must not block: the runner records it in the background. The turn's
   * result carries the messages to store: all of them, but of the plans only the last.
   */
  onProgress?: (message: AgentMessage) => void;
}

export interface AgentJob {
  id: string;
  projectId: string;
  repository: string;
  branch: string;
  baseBranch: string;
  /** The model this turn runs on: the project's, else the configured default; null when neither is set. */
  model: string | null;
  prLink: string | null;
  /** Whether the pull request opens as a draft; null or absent: as the project says. */
  draft?: boolean | null;
  /** Pull requests in other repositories whose changes this job documents (an automation's runs), oldest first. */
  sources?: SourcePullRequest[];
}

/** A pull request (GitLab: merge request) in a source repository that a job's changes follow. */
export interface SourcePullRequest {
  url: string;
  title: string;
  number: number;
  author?: string;
  /**
   * The repository it was merged in, at the merge commit: connected to the job's turns as
   * read-only context, so the agent reads the code around the change, not only its diff.
   */
  repository?: { url: string; ref: string; commit: string };
}

export type AgentTurnResult =
  | {
      outcome: 'succeeded';
      summary: string;
      changedFiles: string[];
      prLink: string | null;
      usage: TokenUsage | null;
      messages: AgentMessage[];
      /** What the change relied on beyond the docs repository (for the job's turn and the review). */
      sources?: TurnSource[];
    }
  | {
      /** A final failure: the turn is not retried and, if it is the job's last, the job fails. */
      outcome: 'failed';
      reason: string;
      usage: TokenUsage | null;
      messages: AgentMessage[];
    };
