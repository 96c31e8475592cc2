import type { MessageRow, TurnRow } from '../../storage/schema.ts';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'note';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What the agent said and did during a turn, in order. */
export type AgentMessage =
  | { role: 'assistant'; text: string }
  | { role: 'tool'; tool: { name: string; input: unknown; output: string } }
  | { role: 'note'; text: string };

/** A message as stored (`messages.content`): the prompt, or one of the agent's. */
export type StoredMessage = { role: 'user'; text: string } | AgentMessage;

/** One entry of a job's conversation as the API shows it. */
export interface ConversationMessage {
  id: string;
  turn: number;
  role: MessageRole;
  text: string | null;
  tool: { name: string; input: unknown; output: string } | null;
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
  usage: TokenUsage | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export function toConversationMessage(row: MessageRow, turnSeq: number): ConversationMessage {
  const content = JSON.parse(row.content) as StoredMessage;
  return {
    id: row.id,
    turn: turnSeq,
    role: content.role,
    text: 'text' in content ? content.text : null,
    tool: 'tool' in content ? content.tool : null,
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
    usage: row.usage === null ? null : (JSON.parse(row.usage) as TokenUsage),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
