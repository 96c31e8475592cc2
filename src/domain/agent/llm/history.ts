import type { AssistantContent, ModelMessage, ToolResultPart } from 'ai';
import type { ConversationMessage } from '../../jobs/conversation.ts';
import { PLAN_TOOL, planUpdatedText } from './plan-tool.ts';

/**
 * Turns the stored conversation of earlier turns into model messages, so a follow-up turn
 * sees what was asked, said and done before. Tool calls are replayed as real tool calls
 * with their (shortened) stored results, each answered before the conversation moves on,
 * as every provider requires. Docwright's own notes become assistant text; a turn's plan, the
 * update_plan call that set it.
 */
export function historyToModelMessages(history: ConversationMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let assistant: Exclude<AssistantContent, string> = [];
  let results: ToolResultPart[] = [];
  const flush = () => {
    if (assistant.length > 0) out.push({ role: 'assistant', content: assistant });
    if (results.length > 0) out.push({ role: 'tool', content: results });
    assistant = [];
    results = [];
  };

  history.forEach((message, index) => {
    switch (message.role) {
      case 'user':
        flush();
        out.push({ role: 'user', content: message.text ?? '' });
        break;
      case 'assistant':
      case 'note': {
        const text = message.text ?? '';
        if (text.trim() === '') break;
        // Text after tool calls starts the next assistant message, after their results.
        if (results.length > 0) flush();
        assistant.push({ type: 'text', text: message.role === 'note' ? `[Docwright note] ${text}` : text });
        break;
      }
      case 'tool': {
        if (message.tool === null) break;
        const toolCallId = `history_${index}`;
        const { name: toolName, input, output } = message.tool;
        assistant.push({ type: 'tool-call', toolCallId, toolName, input: asObject(input) });
        results.push({ type: 'tool-result', toolCallId, toolName, output: { type: 'text', value: output } });
        break;
      }
      case 'plan': {
        if (message.plan === null) break;
        const toolCallId = `history_${index}`;
        const { plan } = message;
        assistant.push({ type: 'tool-call', toolCallId, toolName: PLAN_TOOL, input: { items: plan.items } });
        results.push({
          type: 'tool-result',
          toolCallId,
          toolName: PLAN_TOOL,
          output: { type: 'text', value: planUpdatedText(plan) },
        });
        break;
      }
    }
  });
  flush();
  return out;
}

/** Providers (Anthropic in particular) want tool input to be a JSON object. */
function asObject(input: unknown): unknown {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { value: input };
}
