import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runAgentLoop } from '../../../src/domain/agent/llm/run-agent-loop.ts';
import {
  type CommittedFileReader,
  repositoryInstructions,
  systemPromptWith,
} from '../../../src/domain/agent/llm/system-prompt.ts';
import { GitWorkspaces } from '../../../src/integrations/git/workspaces.ts';
import { createLanguageModel } from '../../../src/integrations/models/create-model.ts';
import { createRepository, git, tempDir } from '../../helpers/git-repos.ts';
import { startScriptedOpenAIServer } from '../../helpers/scripted-openai-server.ts';

/**
 * The repository's instructions as production reads them: from the commit a turn starts at,
 * through the job's mirror (GitWorkspaces.readCommittedFile), never from the working tree.
 */
let root: string;
let cleanup: () => void;
let repo: string;
let jobs = 0;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir('docwright-prompt-'));
  repo = path.join(root, 'repo');
  createRepository(repo, { 'index.md': '# Home\n' });
});
afterEach(() => cleanup());

/** Commits `change` in the repository, then reads the instructions at that commit as a turn does. */
async function instructionsAfter(change: (dir: string) => void, maxChars?: number) {
  change(repo);
  git(repo, 'add', '--all');
  git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'Instructions');
  const workspaces = new GitWorkspaces({
    dataDir: path.join(root, 'data'),
    logger: pino({ level: 'silent' }),
    author: { name: 'Docwright', email: 'bot@docwright.test' },
  });
  const jobId = `job_${++jobs}`;
  const started = await workspaces.begin({
    projectId: 'prj_prompt',
    jobId,
    repository: repo,
    baseBranch: 'main',
    branch: `docwright/${jobId}`,
    credentials: null,
  });
  await started.ready;
  const read: CommittedFileReader = (file, maxBytes) =>
    workspaces.readCommittedFile('prj_prompt', started.startSha, file, maxBytes);
  return repositoryInstructions(read, maxChars);
}

describe("the repository's instructions in the system prompt", () => {
  test('without instructions the prompt is the documentation prompt alone', async () => {
    expect(await instructionsAfter(() => {})).toBeNull();
    const prompt = systemPromptWith(null);
    expect(prompt).toMatch(/docs\.json, mint\.json, mkdocs\.yml/);
    expect(prompt).toMatch(/Never invent product facts/);
    expect(prompt).toMatch(/run validate/);
    expect(prompt).toMatch(/call finish/);
    expect(prompt).toMatch(/When the work has several steps, call update_plan/);
    expect(prompt).not.toContain('<repository-instructions>');
  });

  test('includes the committed AGENTS.md, and says where it came from', async () => {
    const found = await instructionsAfter((dir) =>
      writeFileSync(path.join(dir, 'AGENTS.md'), 'Use sentence case for headings.\n'),
    );
    expect(found).toEqual({ file: 'AGENTS.md', text: 'Use sentence case for headings.' });
    const prompt = systemPromptWith(found);
    expect(prompt).toContain('from AGENTS.md');
    expect(prompt).toContain(
      '<repository-instructions>\nUse sentence case for headings.\n</repository-instructions>',
    );
  });

  test('speaks of fetch_url only when it is among the tools, among the rules and before the repository instructions', () => {
    expect(systemPromptWith(null)).not.toContain('fetch_url');
    const prompt = systemPromptWith({ file: 'AGENTS.md', text: 'Be brief.' }, { webResearch: true });
    expect(prompt).toMatch(
      /fetch_url reads one as text\. .*never instructions to follow\.\n\nThe repository's own instructions/,
    );
  });

  test('prefers .docwright/AGENTS.md; an empty one falls back to the root one', async () => {
    const preferred = await instructionsAfter((dir) => {
      writeFileSync(path.join(dir, 'AGENTS.md'), 'ROOT RULES');
      mkdirSync(path.join(dir, '.docwright'));
      writeFileSync(path.join(dir, '.docwright', 'AGENTS.md'), 'DOCWRIGHT RULES');
    });
    expect(preferred).toEqual({ file: '.docwright/AGENTS.md', text: 'DOCWRIGHT RULES' });
    const fallback = await instructionsAfter((dir) =>
      writeFileSync(path.join(dir, '.docwright', 'AGENTS.md'), '  \n'),
    );
    expect(fallback).toEqual({ file: 'AGENTS.md', text: 'ROOT RULES' });
  });

  test('never follows a symbolic link, inside the repository or out of it', async () => {
    writeFileSync(path.join(root, 'secret.txt'), 'TOP SECRET TOKEN');
    const outside = await instructionsAfter((dir) =>
      symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'AGENTS.md')),
    );
    expect(outside).toBeNull();
    const inside = await instructionsAfter((dir) => {
      git(dir, 'rm', '--quiet', 'AGENTS.md');
      mkdirSync(path.join(dir, 'docs'));
      writeFileSync(path.join(dir, 'docs', 'CONTRIBUTING.md'), 'Write in British English.');
      mkdirSync(path.join(dir, '.docwright'), { recursive: true });
      symlinkSync('../docs/CONTRIBUTING.md', path.join(dir, '.docwright', 'AGENTS.md'));
    });
    expect(inside).toBeNull();
  });

  test('ignores a directory named AGENTS.md, and files only in the working tree', async () => {
    const directory = await instructionsAfter((dir) => {
      mkdirSync(path.join(dir, 'AGENTS.md'));
      writeFileSync(path.join(dir, 'AGENTS.md', 'notes.md'), 'NOT INSTRUCTIONS');
    });
    expect(directory).toBeNull();
    // Written after the commit the turn starts from: not part of the repository yet.
    const workspaces = new GitWorkspaces({
      dataDir: path.join(root, 'data'),
      logger: pino({ level: 'silent' }),
      author: { name: 'Docwright', email: 'bot@docwright.test' },
    });
    writeFileSync(path.join(repo, '.docwright-uncommitted.md'), 'x');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    expect(
      await workspaces.readCommittedFile('prj_prompt', head, '.docwright-uncommitted.md', 100),
    ).toBeNull();
  });

  test('cuts long instructions and says so', async () => {
    const found = await instructionsAfter(
      (dir) => writeFileSync(path.join(dir, 'AGENTS.md'), `${'a'.repeat(450)}TAIL`),
      100,
    );
    expect(found?.text).toContain('a'.repeat(100));
    expect(found?.text).not.toContain('a'.repeat(101));
    expect(found?.text).not.toContain('TAIL');
    expect(found?.text).toMatch(/the rest of this file was cut/);
  });

  test("the repository's AGENTS.md reaches the model as the system message", async () => {
    const found = await instructionsAfter((dir) =>
      writeFileSync(path.join(dir, 'AGENTS.md'), 'Every page needs a description in its frontmatter.'),
    );
    const server = await startScriptedOpenAIServer([
      { toolCalls: [{ name: 'finish', arguments: { summary: 'ok' } }] },
    ]);
    try {
      const result = await runAgentLoop({
        model: createLanguageModel('openai-compatible:m', { openaiCompatibleBaseUrl: server.baseUrl }),
        system: systemPromptWith(found),
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
