import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createDocumentationTools } from '../../../src/domain/agent/tools/index.ts';
import { tempDir, writeTree } from './fixtures.ts';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

// The model cannot exist here; everything from the AI SDK's tool loop inward is real.
describe('the tools inside the AI SDK tool loop', () => {
  it('receive the model arguments and hand back their text, errors included', async () => {
    const repo = await tempDir();
    await writeTree(repo, { 'index.mdx': '# Home\n' });
    const model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"index.mdx"}' },
            {
              type: 'tool-call',
              toolCallId: 'c2',
              toolName: 'write_file',
              input: '{"path":"../x","content":"x"}',
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'Done.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        },
      ],
    });
    const result = await generateText({
      model,
      prompt: 'Read the home page.',
      tools: createDocumentationTools(repo),
      stopWhen: isStepCount(3),
    });
    expect(result.text).toBe('Done.');

    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered.map((tool) => tool.name).sort()).toEqual([
      'delete_file',
      'edit_file',
      'list_files',
      'move_file',
      'read_file',
      'search',
      'validate',
      'write_file',
    ]);
    const readFile = offered.find((tool) => tool.name === 'read_file');
    expect(readFile).toMatchObject({ type: 'function', inputSchema: { type: 'object', required: ['path'] } });

    const toolMessages = (model.doGenerateCalls[1]?.prompt ?? []).filter(
      (message) => message.role === 'tool',
    );
    const outputs = toolMessages
      .flatMap((message) => message.content)
      .map((part) => (part.type === 'tool-result' ? part.output : null));
    expect(outputs).toEqual([
      { type: 'text', value: 'index.mdx (lines 1-1 of 1)\n1\t# Home' },
      { type: 'text', value: 'Error: path escapes the repository: ../x' },
    ]);
  });
});
