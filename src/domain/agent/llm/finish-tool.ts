import { jsonSchema, type Tool, tool } from 'ai';

export const FINISH_TOOL = 'finish';

export interface FinishInput {
  summary: string;
  pull_request_title?: string;
  pull_request_body?: string;
  /** The sources the change relies on, by the names Docwright gave them (`name:path`, or a URL). */
  sources?: string[];
}

/**
 * The tool that ends a turn. The loop stops after the step in which it succeeds; its
 * input becomes the turn's summary and the pull request's title and body.
 */
export function createFinishTool(options: { sources?: boolean } = {}): Tool<FinishInput, string> {
  return tool({
    description:
      'End your turn. Call it exactly once, last, after validate reports no problems with your changes. ' +
      'Give a summary for the person who asked (what you changed and why, or the answer to their question) and, ' +
      'when you changed files, the pull request title and body.',
    inputSchema: jsonSchema<FinishInput>({
      type: 'object',
      properties: {
        summary: {
          type: 'string',
          minLength: 1,
          description: 'What you did and why, or the answer to the question, in a few sentences of Markdown.',
        },
        pull_request_title: {
          type: 'string',
          description: 'Required when you changed files: an imperative title under 72 characters.',
        },
        pull_request_body: {
          type: 'string',
          description:
            'Required when you changed files: Markdown listing the changes and what the reviewer should check.',
        },
        ...(options.sources
          ? {
              sources: {
                type: 'array',
                items: { type: 'string', minLength: 1 },
                maxItems: 200,
                description:
                  'Optional: which of the files you read in connected repositories (as "name:path") and pages you fetched (their URL) the change relies on. Docwright lists them as the pull request\'s sources; omit it to list everything you read.',
              },
            }
          : {}),
      },
      required: ['summary'],
      additionalProperties: false,
    }),
    execute: async (input) => {
      const problem = checkFinishInput(input);
      if (problem !== null) throw new Error(problem);
      return 'Turn finished.';
    },
  });
}

/** The SDK does not check input against a plain JSON schema, so the tool does. */
export function checkFinishInput(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return 'finish needs an object with a summary.';
  const { summary, pull_request_title: title, pull_request_body: body } = input as Record<string, unknown>;
  if (typeof summary !== 'string' || summary.trim() === '') return 'finish needs a non-empty summary string.';
  if (title !== undefined && typeof title !== 'string') return 'pull_request_title must be a string.';
  if (body !== undefined && typeof body !== 'string') return 'pull_request_body must be a string.';
  const { sources } = input as Record<string, unknown>;
  if (sources !== undefined && !(Array.isArray(sources) && sources.every((s) => typeof s === 'string'))) {
    return 'sources must be an array of strings.';
  }
  return null;
}
