import type { Executor } from '../../../storage/queries/executor.ts';
import { listMessages } from '../../../storage/queries/messages.ts';
import { listTurns } from '../../../storage/queries/turns.ts';
import type { TurnRow } from '../../../storage/schema.ts';
import { type ConversationMessage, toConversationMessage } from '../conversation.ts';

/**
 * A job's turns and messages, oldest first: for the API (`…/messages`) and, without the turn
 * being run, as the history the agent continues from.
 */
export async function loadConversation(
  db: Executor,
  jobId: string,
  options: { withoutTurn?: string } = {},
): Promise<{ turns: TurnRow[]; messages: ConversationMessage[] }> {
  const [turns, rows] = await Promise.all([listTurns(db, jobId), listMessages(db, jobId)]);
  const seqByTurn = new Map(turns.map((t) => [t.id, t.seq]));
  const messages = rows
    .filter((m) => m.turn_id !== options.withoutTurn)
    .map((m) => toConversationMessage(m, seqByTurn.get(m.turn_id) ?? 0));
  return { turns, messages };
}
