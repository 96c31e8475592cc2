import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { KEEP_ALIVE_TIMEOUT_MS, serverTimeoutOptions } from '../../../src/http/server-timeouts.ts';
import { BodiesPerAddress } from '../../../src/http/slow-clients.ts';

describe('the slow-client bounds', () => {
  it('close every stalled connection within 100 s with the default settings', () => {
    const { http } = loadConfig({}, '/srv');
    const bodyTimeoutMs = http.bodyTimeoutSeconds * 1000;
    const options = serverTimeoutOptions({
      headersTimeoutMs: http.headersTimeoutSeconds * 1000,
      requestTimeoutMs: http.requestTimeoutSeconds * 1000,
    });
    const { headersTimeout, requestTimeout, connectionsCheckingInterval } = options.http;
    expect(options.requestTimeout).toBe(requestTimeout);
    // Node closes a request past its bounds at its next check; a body's own deadline is a timer.
    const worstCaseMs = {
      'headers not arriving': headersTimeout + connectionsCheckingInterval,
      'body not arriving': bodyTimeoutMs,
      'waiting at the ingestion gate, then the body': requestTimeout + connectionsCheckingInterval,
      'idle between requests': KEEP_ALIVE_TIMEOUT_MS,
    };
    expect(worstCaseMs).toEqual({
      'headers not arriving': 18_750,
      'body not arriving': 30_000,
      'waiting at the ingestion gate, then the body': 63_750,
      'idle between requests': 72_000,
    });
    // With a quarter of the 100 s to spare.
    expect(Math.max(...Object.values(worstCaseMs))).toBeLessThanOrEqual(75_000);
  });

  it('check often enough for short bounds, and not more than every 5 s for long ones', () => {
    const check = (headersTimeoutMs: number) =>
      serverTimeoutOptions({ headersTimeoutMs, requestTimeoutMs: headersTimeoutMs * 4 }).http
        .connectionsCheckingInterval;
    expect(check(1000)).toBe(250);
    expect(check(200)).toBe(100);
    expect(check(600_000)).toBe(5000);
  });
});

describe('BodiesPerAddress', () => {
  it('holds at most the limit per address, each address on its own, and takes places back once', () => {
    const places = new BodiesPerAddress(2);
    const first = places.take('192.0.2.1');
    const second = places.take('192.0.2.1');
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(places.take('192.0.2.1')).toBeNull();
    expect(places.take('2001:db8::1')).not.toBeNull();

    first?.();
    first?.();
    expect(places.take('192.0.2.1')).not.toBeNull();
    expect(places.take('192.0.2.1')).toBeNull();
    expect(places.addresses).toBe(2);
  });

  it('forgets an address once its last body has arrived', () => {
    const places = new BodiesPerAddress(3);
    const giveBacks = [places.take('192.0.2.9'), places.take('192.0.2.9')];
    for (const giveBack of giveBacks) giveBack?.();
    expect(places.addresses).toBe(0);
    expect(() => new BodiesPerAddress(0)).toThrow(RangeError);
  });
});
