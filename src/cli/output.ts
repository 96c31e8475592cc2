import { cliIo } from './io.ts';

/** Prints `value` as JSON with --json, else as the human text `render` gives. */
export function print<T>(json: boolean, value: T, render: (value: T) => string): void {
  cliIo().stdout.write(json ? `${JSON.stringify(value)}\n` : `${render(value)}\n`);
}

/** Something the user should know that did not stop the command: stderr, as JSON with --json. */
export function notice(json: boolean, text: string): void {
  cliIo().stderr.write(json ? `${JSON.stringify({ notice: text })}\n` : `Note: ${text}\n`);
}

/** Things the user should know that did not stop the command (with --json, they are in the output). */
export function warn(json: boolean, warnings: readonly string[]): void {
  if (json) return;
  for (const warning of warnings) cliIo().stderr.write(`Warning: ${warning}\n`);
}

/** A plain aligned table for terminals. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}
