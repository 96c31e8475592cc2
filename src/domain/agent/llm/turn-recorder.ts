import type { StepResult, ToolSet } from 'ai';
import type { AgentMessage } from '../agent.ts';
import { FINISH_TOOL, type FinishInput } from './finish-tool.ts';
import { checkPlanInput, PLAN_TOOL } from './plan-tool.ts';

const MAX_RECORDED_INPUT_STRING = 4000;

/**
 * Keeps the turn's transcript: assistant text, tool calls with inputs and shortened results,
 * notes, and the agent's plan. Every message goes to `onMessage` as it happens; of the plans,
 * only the turn's last is kept in `messages` (what is stored), where its last update was, so a
 * model that updates its plan at every step does not fill the conversation with checklists.
 */
export class TurnRecorder {
  readonly messages: AgentMessage[] = [];
  private readonly maxOutputChars: number;
  private readonly onMessage: ((message: AgentMessage) => void) | undefined;

  constructor(maxOutputChars: number, onMessage?: (message: AgentMessage) => void) {
    this.maxOutputChars = maxOutputChars;
    this.onMessage = onMessage;
  }

  /**
   * Records a step in the order the model wrote it (tools running in parallel finish in
   * any order) and returns the input of a successful finish call, if any.
   */
  recordStep(step: StepResult<ToolSet>): FinishInput | null {
    type Outcome = Extract<(typeof step.content)[number], { type: 'tool-result' | 'tool-error' }>;
    const outcomes = new Map<string, Outcome>();
    for (const part of step.content) {
      if (part.type === 'tool-result' || part.type === 'tool-error') outcomes.set(part.toolCallId, part);
    }
    let finish: FinishInput | null = null;
    let text = '';
    const flushText = () => {
      if (text.trim() !== '') this.push({ role: 'assistant', text: text.trim() });
      text = '';
    };
    const record = (part: Outcome) => {
      flushText();
      outcomes.delete(part.toolCallId);
      if (part.type === 'tool-result' && part.toolName === PLAN_TOOL) {
        // The tool checked the same input; a call it refused is kept as the tool call it was.
        const checked = checkPlanInput(part.input);
        if (checked.ok) {
          this.push({ role: 'plan', plan: checked.plan });
          return;
        }
      }
      const output =
        part.type === 'tool-result'
          ? stringify(part.output)
          : `Error: ${part.error instanceof Error ? part.error.message : String(part.error)}`;
      this.push({
        role: 'tool',
        tool: { name: part.toolName, input: shortenInput(part.input), output: this.shorten(output) },
      });
      if (part.type === 'tool-result' && part.toolName === FINISH_TOOL) finish = part.input as FinishInput;
    };
    for (const part of step.content) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool-call') {
        const outcome = outcomes.get(part.toolCallId);
        if (outcome !== undefined) record(outcome);
      }
    }
    for (const outcome of [...outcomes.values()]) record(outcome);
    flushText();
    return finish;
  }

  note(text: string): void {
    this.push({ role: 'note', text });
  }

  lastAssistantText(): string | null {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i];
      if (message?.role === 'assistant') return message.text;
    }
    return null;
  }

  private push(message: AgentMessage): void {
    if (message.role === 'plan') {
      const earlier = this.messages.findIndex((m) => m.role === 'plan');
      if (earlier !== -1) this.messages.splice(earlier, 1);
    }
    this.messages.push(message);
    this.onMessage?.(message);
  }

  private shorten(text: string): string {
    if (text.length <= this.maxOutputChars) return text;
    return `${text.slice(0, this.maxOutputChars)}\n[… ${text.length - this.maxOutputChars} more characters not stored]`;
  }
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Long string arguments (a whole file for write_file) are stored shortened. */
function shortenInput(input: unknown): unknown {
  if (typeof input === 'string') {
    return input.length > MAX_RECORDED_INPUT_STRING
      ? `${input.slice(0, MAX_RECORDED_INPUT_STRING)}[… ${input.length - MAX_RECORDED_INPUT_STRING} more characters not stored]`
      : input;
  }
  if (Array.isArray(input)) return input.map(shortenInput);
  if (typeof input === 'object' && input !== null) {
    return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, shortenInput(value)]));
  }
  return input;
}
