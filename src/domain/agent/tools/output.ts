import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ToolError } from './tool-error.ts';

/**
 * Caps a tool result at `maxChars`, cutting at a line break where possible, and says so in
 * words the model can act on (`hint` tells it how to get the rest).
 */
export function capOutput(text: string, maxChars: number, hint: string): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf('\n', maxChars);
  const kept = text.slice(0, cut > maxChars / 2 ? cut : maxChars);
  return `${kept}\n[output truncated: showed ${kept.length} of ${text.length} characters. ${hint}]`;
}

/**
 * Checks tool arguments against the tool's JSON schema. The AI SDK hands `execute` whatever the
 * model sent, so a malformed call becomes a readable error result rather than a crash. Smaller
 * models often send `null` for an omitted argument or `"5"` for 5; those are accepted.
 */
export function parseInput<T extends TSchema>(schema: T, input: unknown): Static<T> {
  const withoutNulls =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null))
      : input;
  const value: unknown = Value.Convert(schema, withoutNulls);
  if (Value.Check(schema, value)) return value;
  const problems = Value.Errors(schema, value)
    .map((error) => {
      const params = error.params as { requiredProperties?: string[]; additionalProperties?: string[] };
      if (error.keyword === 'required') return `missing ${(params.requiredProperties ?? []).join(', ')}`;
      if (error.keyword === 'additionalProperties') {
        return `unknown argument ${(params.additionalProperties ?? []).join(', ')}`;
      }
      // Each unknown argument is also reported as "schema is false"; the line above says it better.
      if (error.keyword === 'boolean') return null;
      return `${error.instancePath === '' ? 'arguments' : error.instancePath.slice(1)} ${error.message}`;
    })
    .filter((problem) => problem !== null)
    .slice(0, 5);
  throw new ToolError(`invalid arguments: ${problems.join('; ')}`);
}
