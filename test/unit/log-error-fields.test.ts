import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.ts';

function capture(): { lines: Array<Record<string, unknown>>; raw: string[]; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, raw, stream };
}

describe('the service log and errors', () => {
  it('logs an error as its class, message, code and causes, never its stack', () => {
    const { lines, raw, stream } = capture();
    const log = createLogger('info', stream);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = new TypeError('fetch failed', { cause: refused });
    log.error({ err: wrapped }, 'unhandled error');
    log.warn({ err: new AggregateError([refused, new RangeError('too far')], 'all failed') }, 'several');
    log.warn({ err: 'a message, not an Error' }, 'text');

    expect(raw.join('')).not.toContain('stack');
    expect(raw.join('')).not.toContain('at ');
    expect(lines[0]?.err).toEqual({
      type: 'TypeError',
      message: 'fetch failed',
      cause: { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' },
    });
    expect(lines[1]?.err).toEqual({
      type: 'AggregateError',
      message: 'all failed',
      errors: [
        { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' },
        { type: 'RangeError', message: 'too far' },
      ],
    });
    expect(lines[2]?.err).toBe('a message, not an Error');
  });

  it('stops at a cycle of causes', () => {
    const { lines, stream } = capture();
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    createLogger('info', stream).error({ err: a }, 'cycle');
    let depth = 0;
    for (let e = lines[0]?.err as { cause?: unknown } | undefined; e; e = e.cause as typeof e) depth++;
    expect(depth).toBe(6);
  });
});
