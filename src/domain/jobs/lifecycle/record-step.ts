import { updateLeasedJob } from '../../../storage/queries/jobs.ts';
import type { AgentMessage } from '../conversation.ts';
import type { JobEventLog, JobStep } from '../job-events.ts';
import type { Lease } from './lease.ts';

/** A step's text and a tool's input, each, are cut to this many characters (outputs already are). */
const MAX_STEP_TEXT = 8000;
const MAX_TOOL_INPUT_JSON = 8000;
const MAX_TOOL_OUTPUT = 4000;

/**
 * Appends a `step` event for something the agent said or did in the running turn (a `plan`
 * event when it set its plan), in one transaction that first proves the worker still holds
 * the job's lease (writing the job row, which also orders it among the job's other events).
 * A worker that lost the job writes nothing. Returns whether it was written.
 */
export async function recordStep(
  log: JobEventLog,
  lease: Lease,
  turnSeq: number,
  message: AgentMessage,
  now: string,
): Promise<boolean> {
  return log.transaction(now, async (tx, events) => {
    const held = await updateLeasedJob(tx, lease, { lease_owner: lease.owner });
    if (held?.status !== 'active') return false;
    if (message.role === 'plan')
      events.plan(held, { turn: turnSeq, items: message.plan.items, createdAt: now });
    else events.step(held, toJobStep(turnSeq, message, now));
    return true;
  });
}

/** The step as the event stream shows it, cut to a size a browser renders at once. */
export function toJobStep(
  turn: number,
  message: Exclude<AgentMessage, { role: 'plan' }>,
  at: string,
): JobStep {
  if (message.role !== 'tool') {
    return { turn, role: message.role, text: cut(message.text, MAX_STEP_TEXT), tool: null, createdAt: at };
  }
  const { name, input, output } = message.tool;
  const inputJson = JSON.stringify(input) ?? 'null';
  return {
    turn,
    role: 'tool',
    text: null,
    tool: {
      name,
      input: inputJson.length > MAX_TOOL_INPUT_JSON ? cut(inputJson, MAX_TOOL_INPUT_JSON) : input,
      output: cut(output, MAX_TOOL_OUTPUT),
    },
    createdAt: at,
  };
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}[… ${text.length - max} more characters]` : text;
}
