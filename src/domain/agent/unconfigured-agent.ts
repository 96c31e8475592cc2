import type { Agent, AgentTurnInput, AgentTurnResult } from './agent.ts';

/** Why a job cannot run without a model, with how to fix it. */
export function noModelReason(model: string | null): string {
  return model === null
    ? 'No model configured: set DOCWRIGHT_MODEL (for example anthropic:claude-sonnet-4-5 or openai-compatible:qwen3-coder) and the provider API key, restart Docwright, then send a follow-up message to this job.'
    : `No agent can run model "${model}" in this version of Docwright.`;
}

/**
 * Stands in until a model provider is configured: every turn fails at once with a reason
 * that says how to fix it, so no job waits forever.
 */
export class UnconfiguredAgent implements Agent {
  async runTurn({ job }: AgentTurnInput): Promise<AgentTurnResult> {
    return { outcome: 'failed', reason: noModelReason(job.model), usage: null, messages: [] };
  }
}
