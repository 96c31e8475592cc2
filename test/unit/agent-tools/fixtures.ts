import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ToolSet } from 'ai';
import { afterEach } from 'vitest';
import { createDocumentationTools, type ToolLimits } from '../../../src/domain/agent/tools/index.ts';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the test. */
export async function tempDir(prefix = 'docwright-tools-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes `files` (relative path → content) under `root`. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** Every path under `dir`, recursively, sorted: to prove nothing appeared or vanished. */
export async function snapshot(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

export interface ToolHarness {
  tools: ToolSet;
  call(name: string, input: unknown): Promise<string>;
}

/** The tools over `workdir`, called the way the AI SDK calls them. */
export function harness(
  workdir: string,
  limits?: Partial<ToolLimits>,
  options?: Parameters<typeof createDocumentationTools>[2],
): ToolHarness {
  const tools = createDocumentationTools(workdir, limits, options);
  return {
    tools,
    async call(name, input) {
      const execute = tools[name]?.execute;
      if (execute === undefined) throw new Error(`no tool ${name}`);
      const output: unknown = await execute(
        input as never,
        { toolCallId: 'call-1', messages: [], context: {} } as never,
      );
      if (typeof output !== 'string') throw new Error(`tool ${name} returned ${typeof output}`);
      return output;
    },
  };
}
