import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const WORKER_FIXTURE = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));
export const DOCWRIGHT_BIN = fileURLToPath(new URL('../../bin/docwright.js', import.meta.url));

export interface ChildHandle {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts a child Node process and resolves once it printed `readyLine` (or exited). */
export async function startChild(
  args: string[],
  env: Record<string, string>,
  readyLine?: RegExp,
  /** Written to the child's standard input, which is then closed; without it, stdin is empty. */
  input?: string,
): Promise<ChildHandle> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  if (readyLine) {
    const deadline = Date.now() + 20_000;
    while (!readyLine.test(out)) {
      if (child.exitCode !== null) throw new Error(`child exited early (${child.exitCode}): ${err}`);
      if (Date.now() > deadline) throw new Error(`child not ready in time: ${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return { child, stdout: () => out, stderr: () => err, exited };
}

export function startWorkerProcess(env: Record<string, string>): Promise<ChildHandle> {
  return startChild([WORKER_FIXTURE], env, /^ready$/m);
}

/** Runs the docwright CLI to completion, with `input` on its standard input if given. */
export async function runCli(args: string[], env: Record<string, string>, input?: string) {
  const handle = await startChild([DOCWRIGHT_BIN, ...args], env, undefined, input);
  const code = await handle.exited;
  return { code, stdout: handle.stdout(), stderr: handle.stderr() };
}
