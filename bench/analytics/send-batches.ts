// The benchmarks' ingestion client: posts prepared bodies to `POST …/events`, `concurrency` in
// flight over kept-alive connections, and sums what the server accepted. Plain `node:http` with
// bodies encoded once: it shares the machine's cores with the server, and `fetch` spent about
// 1.5 µs of CPU an event (a body's UTF-8 encoding and its streams on every request), a tenth of
// what the server spends, taken from the server's cores.
import { Agent, request } from 'node:http';

export interface IngestTarget {
  /** Base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  projectId: string;
  key: string;
}

/** JSON bodies as bytes, encoded once before the timing starts. */
export function encodeBodies(bodies: readonly string[]): Buffer[] {
  return bodies.map((body) => Buffer.from(body));
}

/** Sends every body (each a 202 or the run fails); returns the events accepted in all. */
export async function sendBatches(
  target: IngestTarget,
  bodies: readonly Buffer[],
  concurrency: number,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(target.url);
  const headers = { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' };
  const send = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          hostname,
          port,
          method: 'POST',
          path: `/v1/analytics/${target.projectId}/events`,
          headers: { ...headers, 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 202) reject(new Error(`ingestion answered ${res.statusCode}: ${text}`));
            else resolve((JSON.parse(text) as { accepted: number }).accepted);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  let accepted = 0;
  const worker = async () => {
    while (next < bodies.length) {
      // Not `accepted += await …`: that reads `accepted` before the wait and loses the others' sums.
      const count = await send(bodies[next++] as Buffer);
      accepted += count;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return accepted;
}
