import { connect, type Socket } from 'node:net';

/** What the server had answered when it closed the connection. */
export interface RawOutcome {
  /** The first answer's status; 0 when nothing was answered. */
  status: number;
  /** The first answer's body, parsed as JSON when it is. */
  body: unknown;
  /** Everything received. */
  text: string;
  /** Milliseconds from opening the connection to its close. */
  afterMs: number;
}

/** An HTTP/1.1 client on a socket of its own that sends exactly the bytes it is told to, when told. */
export interface RawClient {
  socket: Socket;
  /** Resolves when the connection closes, whoever closed it. */
  closed: Promise<RawOutcome>;
  isOpen(): boolean;
  received(): string;
  write(data: string): void;
  /** Writes one byte of `data` every `everyMs` until it is all sent or the connection closes. */
  trickle(data: string, everyMs: number): void;
  destroy(): void;
}

/** A request head (request line and headers, with the blank line). */
export function requestHead(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: 'docwright.test', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** Opens a connection to `baseUrl` (from `localAddress` if given) and writes `initial` once connected. */
export function openRaw(
  baseUrl: string,
  initial: string,
  options: { localAddress?: string } = {},
): RawClient {
  const url = new URL(baseUrl);
  const openedAt = performance.now();
  const socket = connect({
    port: Number(url.port),
    host: url.hostname,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  if (initial) socket.write(initial);
  let text = '';
  let open = true;
  let trickling: NodeJS.Timeout | undefined;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  // The server may close while bytes are still being written: that is what is tested.
  socket.on('error', () => {});
  const closed = new Promise<RawOutcome>((resolve) => {
    socket.on('close', () => {
      open = false;
      clearInterval(trickling);
      resolve({ ...parseFirstAnswer(text), text, afterMs: performance.now() - openedAt });
    });
  });
  return {
    socket,
    closed,
    isOpen: () => open,
    received: () => text,
    write: (data) => {
      if (open) socket.write(data);
    },
    trickle(data, everyMs) {
      let at = 0;
      trickling = setInterval(() => {
        if (!open || at >= data.length) return clearInterval(trickling);
        socket.write(data[at++] ?? '');
      }, everyMs);
    },
    destroy: () => socket.destroy(),
  };
}

function parseFirstAnswer(text: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status, body: null };
  const head = text.slice(0, headEnd);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
  const raw = Number.isNaN(length) ? text.slice(headEnd + 4) : text.slice(headEnd + 4, headEnd + 4 + length);
  try {
    return { status, body: JSON.parse(raw) };
  } catch {
    return { status, body: raw };
  }
}
