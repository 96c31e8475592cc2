import { jsonSchema, type Tool, tool } from 'ai';
import type { Static, TSchema } from 'typebox';
import { parseInput } from './output.ts';
import { describeToolFailure } from './tool-error.ts';
import type { Workspace } from './workspace.ts';

/**
 * A documentation tool: JSON-schema arguments checked on every call, a plain-text result, and
 * every failure turned into an `Error: …` result the model reads instead of an exception
 * thrown through the agent loop.
 */
export function defineTool<T extends TSchema>(spec: {
  workspace: Workspace;
  description: string;
  schema: T;
  run: (input: Static<T>, signal: AbortSignal | undefined) => Promise<string>;
}): Tool<Static<T>, string> {
  return tool<Static<T>, string, Record<string, never>>({
    description: spec.description,
    inputSchema: jsonSchema<Static<T>>(spec.schema),
    execute: async (input, options) => {
      let path: string | undefined;
      try {
        const parsed = parseInput(spec.schema, input);
        if (
          typeof parsed === 'object' &&
          parsed !== null &&
          'path' in parsed &&
          typeof parsed.path === 'string'
        ) {
          path = parsed.path;
        }
        return await spec.workspace.exclusive(() => spec.run(parsed, options.abortSignal));
      } catch (error) {
        return describeToolFailure(error, path);
      }
    },
  });
}
