import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LogDestination } from '../../src/logging/log-destination.ts';

describe('LogDestination', () => {
  it('writes every line, in order, also when lines arrive while a write is in flight', async () => {
    const file = path.join(tmpdir(), `dw-log-${process.pid}-${Date.now()}.log`);
    const fd = openSync(file, 'w');
    try {
      const logs = new LogDestination(fd);
      const lines = Array.from({ length: 2000 }, (_, i) => `{"n":${i}}\n`);
      for (const line of lines) logs.write(line);
      await logs.drain(5000);
      expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
    } finally {
      closeSync(fd);
      rmSync(file, { force: true });
    }
  });

  it('stops logging, without throwing or hanging, once the reader of its pipe is gone', async () => {
    // A child whose stdout is a pipe to us; we close our end, then it logs to it.
    const script = `
      const { LogDestination } = await import(${JSON.stringify(new URL('../../src/logging/log-destination.ts', import.meta.url).href)});
      const logs = new LogDestination(1);
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < 1000; i++) logs.write('a line that goes nowhere\\n');
      const started = Date.now();
      await logs.drain(5000);
      process.stderr.write(String(Date.now() - started));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    const err = new PassThrough();
    child.stderr.pipe(err);
    let drainMs = '';
    err.on('data', (d: Buffer) => {
      drainMs += d.toString();
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(Number(drainMs)).toBeLessThan(1000);
  });
});
