import { jsonSchema, type ToolSet, tool } from 'ai';

/** A tiny in-memory file tool set, enough to drive the loop without the real tools. */
export function toyTools(files: Map<string, string>, calls: string[] = []): ToolSet {
  return {
    read_file: tool({
      description: 'Read a file.',
      inputSchema: jsonSchema<{ path: string }>({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
        additionalProperties: false,
      }),
      execute: async ({ path }) => {
        calls.push(`read_file ${path}`);
        const content = files.get(path);
        if (content === undefined) throw new Error(`No file ${path}`);
        return content;
      },
    }),
    write_file: tool({
      description: 'Write a file.',
      inputSchema: jsonSchema<{ path: string; content: string }>({
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
        additionalProperties: false,
      }),
      execute: async ({ path, content }) => {
        calls.push(`write_file ${path}`);
        files.set(path, content);
        return `Wrote ${content.length} characters to ${path}.`;
      },
    }),
  };
}
