import type { Agent, AgentTurnInput, AgentTurnResult } from './agent.ts';

/**
 * Stands in until a model provider is configured (or supported): every turn fails at once
 * with a reason that says how to fix it, so no job waits forever.
 */
export class UnconfiguredAgent implements Agent {
  async runTurn({ job }: AgentTurnInput): Promise<AgentTurnResult> {
    const reason =
      job.model === null
        ? 'No model configured: set DOCWRIGHT_MODEL (for example anthropic:claude-sonnet-4-5 or openai-compatible:qwen3-coder) and the provider API key, restart Docwright, then send a follow-up message to this job.'
        : `No agent can run model "${job.model}" in this version of Docwright.`;
    return { outcome: 'failed', reason, usage: null, messages: [] };
  }
}
