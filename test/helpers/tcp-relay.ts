import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to a real server that a test can take down and bring back on the same port, as a
 * database restart or a network partition looks to a client: `down()` resets every connection
 * through it and refuses new ones; `up()` relays again.
 */
export interface TcpRelay {
  host: string;
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = async () => {
    const next = createServer((client) => {
      const upstream = createConnection(target);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    next.listen(port, '127.0.0.1');
    await once(next, 'listening');
    const address = next.address();
    port = typeof address === 'object' && address ? address.port : 0;
    server = next;
  };
  const down = async () => {
    const current = server;
    server = null;
    if (!current) return;
    const closed = once(current, 'close');
    current.close();
    for (const socket of sockets) socket.resetAndDestroy();
    await closed;
  };
  await listen();
  return {
    host: '127.0.0.1',
    port,
    down,
    up: async () => {
      if (!server) await listen();
    },
    close: down,
  };
}

/** A port nothing listens on (a server started and closed), as a database that is down looks. */
export async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
