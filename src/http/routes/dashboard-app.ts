import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { pageSecurityHeaders } from '../page-security-headers.ts';

export interface DashboardAppOptions {
  /** The built dashboard (`npm run build:dashboard`): index.html and assets/. */
  distDir?: string;
}

export const DEFAULT_DASHBOARD_DIR = path.resolve(import.meta.dirname, '../../../dist/dashboard');

const SECURITY_HEADERS = pageSecurityHeaders();

/** Paths that belong to the API: they keep its JSON 404 rather than getting the application. */
const API_PATH =
  /^\/(?:(?:v\d+|dashboard\/api|review|docs|assets)(?:\/|$)|(?:openapi\.json|health|script\.js|collect)$)/;

/**
 * The dashboard: its hashed assets under /assets/ (cached for good: a new build has new names)
 * and index.html (never cached) for a browser navigation to any other path, where the
 * application's router takes over. Left out of /openapi.json: these are pages, not API.
 */
export const dashboardAppRoutes: FastifyPluginAsync<DashboardAppOptions> = async (app, options) => {
  const distDir = options.distDir ?? DEFAULT_DASHBOARD_DIR;
  const assetsDir = path.join(distDir, 'assets');

  app.addHook('onSend', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });

  if (existsSync(assetsDir)) {
    await app.register(fastifyStatic, {
      root: assetsDir,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: '365d',
      // Only the built files: no directory listing, no dot files.
      list: false,
      dotfiles: 'deny',
    });
  } else {
    // Same route as when built, so the routes do not depend on whether the build ran.
    app.get('/assets/*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
  }

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    // Someone checking that the server runs (`curl http://host:port/`) gets an answer, not a 404.
    if (pathname === '/' && !acceptsHtml(request)) return ROOT_ANSWER;
    if (API_PATH.test(pathname) || !acceptsHtml(request)) return reply.callNotFound();
    const html = await readFile(path.join(distDir, 'index.html'), 'utf8').catch(() => null);
    if (html === null) return sendHtml(reply, 503, NOT_BUILT_PAGE);
    return sendHtml(reply, 200, html);
  });
};

/** GET / for a client that does not ask for a page: where things are. */
const ROOT_ANSWER = {
  status: 'ok',
  service: 'Docwright',
  dashboard: 'open this URL in a browser',
  apiReference: '/docs',
  health: '/health',
} as const;

function acceptsHtml(request: FastifyRequest): boolean {
  return /text\/html/.test(request.headers.accept ?? '');
}

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docwright: the dashboard is not built</title></head>
<body>
<h1>The dashboard is not built yet</h1>
<p>The API works (reference: <a href="/docs">/docs</a>); the dashboard's files are missing from <code>dist/dashboard</code>.</p>
<p>Build them with <code>npm run build:dashboard</code> (or start the server with <code>npm start</code>, which builds
them when they are missing or out of date), then reload this page.</p>
</body></html>
`;
