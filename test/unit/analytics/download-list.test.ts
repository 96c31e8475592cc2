import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadList } from '../../../src/integrations/crawler-ranges/download-list.ts';

describe('downloadList', () => {
  // A local publisher: a small list, a large one (declared, and streamed without a length), one that never answers.
  const server = createServer((request, response) => {
    if (request.url === '/small.json') return response.end('{"prefixes":[]}');
    if (request.url === '/declared.json') {
      response.writeHead(200, { 'content-length': String(64 * 1024) });
      return response.end('x'.repeat(64 * 1024));
    }
    if (request.url === '/streamed.json') {
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      for (let i = 0; i < 64; i++) response.write('x'.repeat(1024));
      return response.end();
    }
    if (request.url === '/missing.json') {
      response.writeHead(404);
      return response.end('not found');
    }
    // /slow.json: headers never come; the client's timeout must end it.
  });
  let base: string;
  const limits = { timeoutMs: 300, maxBytes: 16 * 1024, allowHttp: true };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('returns a list within the limits', async () => {
    expect(await downloadList(`${base}/small.json`, limits)).toBe('{"prefixes":[]}');
  });

  it('refuses more than the size cap, declared or not', async () => {
    await expect(downloadList(`${base}/declared.json`, limits)).rejects.toThrow(
      /65536 bytes, more than the 16384 allowed/,
    );
    await expect(downloadList(`${base}/streamed.json`, limits)).rejects.toThrow(
      /more than the 16384 bytes allowed/,
    );
  });

  it('gives up after the timeout', async () => {
    await expect(downloadList(`${base}/slow.json`, limits)).rejects.toThrow(
      /slow\.json: no answer within 0\.3 s/,
    );
  });

  it('refuses plain HTTP unless allowed', async () => {
    await expect(downloadList(`${base}/small.json`, { ...limits, allowHttp: false })).rejects.toThrow(
      /only HTTPS is allowed/,
    );
  });

  it('answers an HTTP error status with the status', async () => {
    await expect(downloadList(`${base}/missing.json`, limits)).rejects.toThrow(/missing\.json: HTTP 404$/);
  });
});
