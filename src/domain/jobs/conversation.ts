import type { MessageRow, TurnRow } from '../../storage/schema.ts';
import type { Plan } from './plan.ts';
import { parseTurnSources, type TurnSource } from './turn-sources.ts';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'note' | 'plan';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those the provider reports as read from its prompt cache; absent: none reported. */
  cachedInputTokens?: number;
}

/** A turn's usage as the API shows it: its tokens and the cost estimated when they were recorded. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** USD, estimated from the price table when the turn was recorded; null when its model had no price. */
  costUsd: number | null;
}

/**
 * What the agent said and did during a turn, in order. A `plan` is the agent's checklist as it
 * last set it (update_plan); a turn stores only its last one.
 */
export type AgentMessage =
  | { role: 'assistant'; text: string }
  | { role: 'tool'; tool: { name: string; input: unknown; output: string } }
  | { role: 'note'; text: string }
  | { role: 'plan'; plan: Plan };

/** A message as stored (`messages.content`): the prompt, or one of the agent's. */
export type StoredMessage = { role: 'user'; text: string } | AgentMessage;

/** One entry of a job's conversation as the API shows it. */
export interface ConversationMessage {
  id: string;
  turn: number;
  role: MessageRole;
  text: string | null;
  tool: { name: string; input: unknown; output: string } | null;
  /** The agent's plan, for a `plan` message; null for the others. */
  plan: Plan | null;
  createdAt: string;
}

export interface TurnView {
  turn: number;
  status: string;
  prompt: string;
  /** provider:model-id the turn ran on (resolved when it started); null before it starts. */
  model: string | null;
  attempts: number;
  summary: string | null;
  error: string | null;
  usage: TurnUsage | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** What the turn's change relied on beyond the docs repository (connected-repository files, web pages). */
  sources: TurnSource[];
}

export function toConversationMessage(row: MessageRow, turnSeq: number): ConversationMessage {
  const content = JSON.parse(row.content) as StoredMessage;
  return {
    id: row.id,
    turn: turnSeq,
    role: content.role,
    text: 'text' in content ? content.text : null,
    tool: 'tool' in content ? content.tool : null,
    plan: 'plan' in content ? content.plan : null,
    createdAt: row.created_at,
  };
}

export function toTurnView(row: TurnRow): TurnView {
  return {
    turn: row.seq,
    status: row.status,
    prompt: row.prompt,
    model: row.model,
    attempts: row.attempts,
    summary: row.summary,
    error: row.error,
    usage: turnUsage(row.usage, row.cost_usd),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    sources: parseTurnSources(row.sources),
  };
}

/** A turn's stored usage (JSON, null until recorded) and estimate, as the API shows them. */
export function turnUsage(stored: string | null, costUsd: number | null): TurnUsage | null {
  return stored === null ? null : toTurnUsage(JSON.parse(stored) as TokenUsage, costUsd);
}

function toTurnUsage(usage: TokenUsage, costUsd: number | null): TurnUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens ?? 0,
    costUsd: costUsd === null ? null : Number(costUsd),
  };
}
