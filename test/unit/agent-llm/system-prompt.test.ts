import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runAgentLoop } from '../../../src/domain/agent/llm/run-agent-loop.ts';
import { buildSystemPrompt } from '../../../src/domain/agent/llm/system-prompt.ts';
import { createLanguageModel } from '../../../src/integrations/models/create-model.ts';
import { startScriptedOpenAIServer } from '../../helpers/scripted-openai-server.ts';

let root: string;
let repo: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'docwright-prompt-'));
  repo = path.join(root, 'repo');
  await mkdir(repo);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('buildSystemPrompt', () => {
  test('without instructions it is the documentation prompt alone', async () => {
    const prompt = await buildSystemPrompt(repo);
    expect(prompt).toMatch(/docs\.json, mint\.json, mkdocs\.yml/);
    expect(prompt).toMatch(/Never invent product facts/);
    expect(prompt).toMatch(/run validate/);
    expect(prompt).toMatch(/call finish/);
    expect(prompt).not.toContain('<repository-instructions>');
  });

  test("includes the repository's AGENTS.md", async () => {
    await writeFile(path.join(repo, 'AGENTS.md'), 'Use sentence case for headings.\n');
    const prompt = await buildSystemPrompt(repo);
    expect(prompt).toContain('from AGENTS.md');
    expect(prompt).toContain(
      '<repository-instructions>\nUse sentence case for headings.\n</repository-instructions>',
    );
  });

  test('prefers .docwright/AGENTS.md over the root one', async () => {
    await writeFile(path.join(repo, 'AGENTS.md'), 'ROOT RULES');
    await mkdir(path.join(repo, '.docwright'));
    await writeFile(path.join(repo, '.docwright', 'AGENTS.md'), 'DOCWRIGHT RULES');
    const prompt = await buildSystemPrompt(repo);
    expect(prompt).toContain('DOCWRIGHT RULES');
    expect(prompt).toContain('from .docwright/AGENTS.md');
    expect(prompt).not.toContain('ROOT RULES');
  });

  test('an empty .docwright/AGENTS.md falls back to the root one', async () => {
    await writeFile(path.join(repo, 'AGENTS.md'), 'ROOT RULES');
    await mkdir(path.join(repo, '.docwright'));
    await writeFile(path.join(repo, '.docwright', 'AGENTS.md'), '  \n');
    expect(await buildSystemPrompt(repo)).toContain('ROOT RULES');
  });

  test('ignores an AGENTS.md that is a symbolic link out of the repository', async () => {
    await writeFile(path.join(root, 'secret.txt'), 'TOP SECRET TOKEN');
    await symlink(path.join(root, 'secret.txt'), path.join(repo, 'AGENTS.md'));
    const prompt = await buildSystemPrompt(repo);
    expect(prompt).not.toContain('TOP SECRET');
    expect(prompt).not.toContain('<repository-instructions>');
  });

  test('follows a symbolic link that stays inside the repository', async () => {
    await mkdir(path.join(repo, 'docs'));
    await writeFile(path.join(repo, 'docs', 'CONTRIBUTING.md'), 'Write in British English.');
    await symlink('docs/CONTRIBUTING.md', path.join(repo, 'AGENTS.md'));
    expect(await buildSystemPrompt(repo)).toContain('Write in British English.');
  });

  test('ignores a directory named AGENTS.md', async () => {
    await mkdir(path.join(repo, 'AGENTS.md'));
    expect(await buildSystemPrompt(repo)).not.toContain('<repository-instructions>');
  });

  test('cuts long instructions and says so', async () => {
    await writeFile(path.join(repo, 'AGENTS.md'), `${'a'.repeat(150)}TAIL`);
    const prompt = await buildSystemPrompt(repo, { maxInstructionsChars: 100 });
    expect(prompt).toContain('a'.repeat(100));
    expect(prompt).not.toContain('a'.repeat(101));
    expect(prompt).not.toContain('TAIL');
    expect(prompt).toMatch(/the rest of this file was cut/);
  });

  test("the repository's AGENTS.md reaches the model as the system message", async () => {
    await writeFile(path.join(repo, 'AGENTS.md'), 'Every page needs a description in its frontmatter.');
    const server = await startScriptedOpenAIServer([
      { toolCalls: [{ name: 'finish', arguments: { summary: 'ok' } }] },
    ]);
    try {
      const result = await runAgentLoop({
        model: createLanguageModel('openai-compatible:m', { openaiCompatibleBaseUrl: server.baseUrl }),
        system: await buildSystemPrompt(repo),
        history: [],
        prompt: 'Add a page.',
        tools: {},
        limits: { maxSteps: 5, maxTokens: 100_000, maxDurationMs: 10_000 },
        signal: new AbortController().signal,
      });
      expect(result.status).toBe('finished');
      const system = server.requests[0]?.body.messages[0];
      expect(system?.role).toBe('system');
      expect(String(system?.content)).toContain('Every page needs a description in its frontmatter.');
      expect(String(system?.content)).toMatch(/Never invent product facts/);
    } finally {
      await server.close();
    }
  });
});
