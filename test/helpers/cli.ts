import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/program.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a docwright command in this process, as `runCli` (test/helpers/processes.ts) runs it in a
 * child: the same `main`, with `env` as the whole environment (plus PATH and HOME, as the child
 * gets), `input` (or nothing) on standard input, which is not a terminal, and stdout, stderr
 * (log lines included) and the exit code captured. Half a second to seconds faster per command
 * than starting Node; what is about the process itself (the binary, signals, several processes
 * at once, real pipes) stays with `runCli`.
 */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdin: Readable.from(input === undefined ? [] : [Buffer.from(input, 'utf8')]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    logs: {
      write: (line: string) => {
        stderr += line;
      },
      drain: async () => {},
    },
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    exitCode: 0,
  };
  const code = await main(['node', 'docwright', ...args], io);
  return { code, stdout, stderr };
}
