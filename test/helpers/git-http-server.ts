import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpRequest {
  method: string;
  url: string;
  authorization: string | null;
  status: number;
}

export interface GitHttpServer {
  /** e.g. http://127.0.0.1:PORT/git — append the repository path (`/docs.git`). */
  baseUrl: string;
  /** Every request seen, oldest first (for checking what clients sent). */
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** Directory holding the bare repositories that are served. */
  root: string;
  /** Accepted as the password of HTTP Basic auth; without it every request gets 401. */
  token: string;
  /** When set, the Basic-auth user must be this too. */
  username?: string;
}

/**
 * Git's smart HTTP protocol, served by the real `git http-backend` as a CGI program behind
 * node:http: clones, fetches and pushes go through git's own server code. Requests need
 * HTTP Basic auth whose password is the token; pushes are enabled for authenticated users.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  const server = createServer((req, res) => {
    const entry: GitHttpRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization ?? null,
      status: 0,
    };
    requests.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
    const user = authenticate(req, options);
    if (user === null) {
      res.writeHead(401, {
        'www-authenticate': 'Basic realm="docwright-test"',
        'content-type': 'text/plain',
      });
      res.end('Authentication required\n');
      return;
    }
    serveCgi(req, res, options.root, user);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/git`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authenticate(req: IncomingMessage, options: GitHttpServerOptions): string | null {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (password !== options.token) return null;
  if (options.username !== undefined && user !== options.username) return null;
  return user || 'git';
}

function serveCgi(req: IncomingMessage, res: ServerResponse, root: string, user: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (!url.pathname.startsWith('/git/')) {
    res.writeHead(404).end();
    return;
  }
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_HTTP_MAX_REQUEST_BUFFER: '100M',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname.slice('/git'.length)),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: 'HTTP/1.1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    const endLf = head.indexOf('\n\n');
    const split = end >= 0 ? { at: end, len: 4 } : endLf >= 0 ? { at: endLf, len: 2 } : null;
    if (!split) return;
    const lines = head.subarray(0, split.at).toString('latin1').split(/\r?\n/);
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    headersSent = true;
    const rest = head.subarray(split.at + split.len);
    if (rest.length > 0) res.write(rest);
  });
  child.on('close', (code) => {
    if (!headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`git http-backend exited with ${code}: ${stderr}`);
      return;
    }
    res.end();
  });
}
