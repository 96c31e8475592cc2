import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { guardedFetch } from '../../../src/integrations/network/guarded-fetch.ts';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on loopback that answers `/go?to=URL` with a 302 to URL, and anything else with 200. */
async function server(): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) res.writeHead(302, { location: to }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { port: (s.address() as AddressInfo).port, seen };
}

const only = (value: string) => OutboundPolicy.parse(value) as OutboundPolicy;

describe('fetch under the outgoing-network policy', () => {
  it('refuses loopback by default, by address or by a name that resolves to it, without connecting', async () => {
    const { port, seen } = await server();
    const strict = guardedFetch(OutboundPolicy.publicOnly());
    await expect(strict(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      /^Refused: 127\.0\.0\.1 is a loopback address; .*DOCWRIGHT_ALLOW_PRIVATE_NETWORKS/,
    );
    await expect(strict(`http://localhost:${port}/`)).rejects.toThrow(
      /Refused: localhost resolves to 127\.0\.0\.1 is a loopback address/,
    );
    expect(seen).toEqual([]);
  });

  it('reaches what the allow-list names: a host name, or an address range', async () => {
    const { port } = await server();
    expect(await (await guardedFetch(only('localhost'))(`http://localhost:${port}/a`)).text()).toBe('ok');
    expect((await guardedFetch(only('127.0.0.0/8'))(`http://localhost:${port}/a`)).status).toBe(200);
    expect((await guardedFetch(only('127.0.0.0/8'))(`http://127.0.0.1:${port}/a`)).status).toBe(200);
    await expect(guardedFetch(only('10.0.0.0/8'))(`http://127.0.0.1:${port}/a`)).rejects.toThrow(/loopback/);
  });

  it('follows a redirect only through the same check, and drops credentials when it leaves the origin', async () => {
    const a = await server();
    const b = await server();
    const fetchLocal = guardedFetch(only('localhost'));
    // To an address the host-name entry does not cover: refused, never connected to.
    await expect(
      fetchLocal(`http://localhost:${a.port}/go?to=http://127.0.0.1:${b.port}/secret`, {
        headers: { authorization: 'Bearer t0ken' },
      }),
    ).rejects.toThrow(/Refused: 127\.0\.0\.1 is a loopback address/);
    expect(b.seen).toEqual([]);
    // To another allowed origin: followed, without the credentials.
    const response = await fetchLocal(`http://localhost:${a.port}/go?to=http://localhost:${b.port}/next`, {
      headers: { authorization: 'Bearer t0ken', 'private-token': 'glpat', accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(b.seen).toHaveLength(1);
    expect(b.seen[0]?.headers.authorization).toBeUndefined();
    expect(b.seen[0]?.headers['private-token']).toBeUndefined();
    expect(b.seen[0]?.headers.accept).toBe('application/json');
    // Same origin: credentials kept.
    await fetchLocal(`http://localhost:${a.port}/go?to=/here`, {
      headers: { authorization: 'Bearer t0ken' },
    });
    expect(a.seen.at(-1)).toMatchObject({ path: '/here', headers: { authorization: 'Bearer t0ken' } });
  });
});
