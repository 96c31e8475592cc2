import type { MessageRow, TurnRow } from '../../storage/schema.ts';
import type { AgentMessage, TokenUsage } from '../agent/agent.ts';

export type MessageRole = 'user' | 'assistant' | 'tool' | 'note';

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
  attempts: number;
  summary: string | null;
  error: string | null;
  usage: TokenUsage | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export type StoredMessage = { role: 'user'; text: string } | AgentMessage;

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
    attempts: row.attempts,
    summary: row.summary,
    error: row.error,
    usage: row.usage === null ? null : (JSON.parse(row.usage) as TokenUsage),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
