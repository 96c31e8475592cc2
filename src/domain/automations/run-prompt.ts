import type { SourcePullRequest } from '../agent/agent.ts';

const MAX_CONTEXT = 60_000;

/**
 * The prompt of a run's turn: the automation's instructions, the trigger's context (a pull
 * request's title, description and diff summary; the extra context of a manual trigger), and
 * what to answer. A follow-up says that it continues the open pull request.
 */
export function runPrompt(input: {
  instructions: string;
  context: string;
  source: SourcePullRequest | null;
  followUp: boolean;
}): string {
  const parts = [input.instructions.trim()];
  const { source } = input;
  if (source) {
    parts.push(
      `Source pull request: ${source.title} (#${source.number}${source.author ? ` by @${source.author}` : ''}) ${source.url}`,
    );
  }
  const context = input.context.trim();
  if (context) {
    parts.push(
      `Context:\n${context.length > MAX_CONTEXT ? `${context.slice(0, MAX_CONTEXT)}\n[… context cut at ${MAX_CONTEXT} characters]` : context}`,
    );
  }
  if (input.followUp) {
    parts.push(
      'This adds to the documentation pull request this automation already has open: its branch has the earlier changes; add commits to it.',
    );
  }
  parts.push(
    'Update the documentation accordingly, or, if no change is needed, make none and answer that no change is needed and why.',
  );
  return parts.join('\n\n');
}
