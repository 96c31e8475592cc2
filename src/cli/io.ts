import { AsyncLocalStorage } from 'node:async_hooks';
import { LogDestination } from '../logging/log-destination.ts';

/** Where a command's text goes: a stream's `write`, and whether it is a terminal. */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

/** Where the logger's JSON lines go; drained (with a deadline) before the process exits. */
export interface CliLogs {
  write(line: string): void;
  drain(deadlineMs: number): Promise<void>;
}

/**
 * What a command reads and writes besides the database: standard streams, the environment
 * (the configuration) and the exit code. A process has its own (`processIo`); `main(argv, io)`
 * can run a command against others, e.g. in a test that captures the output in memory.
 */
export interface CliIo {
  stdin: AsyncIterable<unknown> & NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  stdout: CliOutput;
  stderr: CliOutput;
  logs: CliLogs;
  env: Record<string, string | undefined>;
  /** Set by a command that finished but failed in part; errors thrown set it in `main`. */
  exitCode: number;
}

/** The running process's streams and environment; logs to stderr (fd 2) asynchronously. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    logs: new LogDestination(2),
    env: process.env,
    exitCode: 0,
  };
}

const current = new AsyncLocalStorage<CliIo>();
let processDefault: CliIo | undefined;

/** Runs `fn` with `io` as what `cliIo()` returns inside it (and in everything it awaits). */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(io, fn);
}

/** The I/O of the command running now: the one `main` was given, else the process's. */
export function cliIo(): CliIo {
  const io = current.getStore();
  if (io) return io;
  processDefault ??= processIo();
  return processDefault;
}
