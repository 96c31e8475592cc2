import { createPublicKey, createVerify, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * A GitHub REST API that exists only in the test. EVERY request is checked against GitHub's
 * published OpenAPI description (@octokit/openapi, api.github.com): the route and method
 * must exist, path and query parameters must match their schemas (and be declared at all),
 * a JSON body must match the request schema and carry no undeclared fields. Every response
 * the fake sends is checked against the documented response schema too. Anything wrong is
 * answered with an error AND recorded in `violations`, which a test should expect empty.
 *
 * Pull requests live in memory. GitHub App installation tokens are issued only for a JWT
 * signed with the App's private key (RS256, verified with its public key).
 */
export interface FakeGitHub {
  /** API root to give Octokit, including the path prefix (e.g. /api/v3 for GHES). */
  baseUrl: string;
  pulls: FakePull[];
  requests: { method: string; path: string; status: number }[];
  violations: string[];
  /** Installation tokens handed out so far. */
  issuedTokens: string[];
  /** The files of source pull requests, by `owner/name#number` (what pulls/{n}/files lists). */
  pullFiles: Map<string, FakePullFile[]>;
  /** Reviewers requested on pull requests, in order (refused ones included, with their status). */
  reviewerRequests: { repository: string; number: number; reviewers: string[]; status: number }[];
  close(): Promise<void>;
}

/** One file of a source pull request: GitHub's diff-entry. */
export interface FakePullFile {
  filename: string;
  status: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  additions: number;
  deletions: number;
  patch?: string;
  previous_filename?: string;
}

export interface FakePull {
  repository: string;
  number: number;
  state: 'open' | 'closed';
  title: string;
  body: string | null;
  head: string;
  base: string;
  draft: boolean;
  updates: number;
}

export interface FakeGitHubOptions {
  /** `owner/name` of the repositories that exist. */
  repositories: string[];
  /** Personal access token accepted on repository endpoints. */
  token?: string;
  app?: { appId: string; publicKeyPem: string; installationId: number };
  /** GHES serves the API under /api/v3. */
  pathPrefix?: string;
  /** When given, creating a pull request from a branch that does not exist fails like GitHub (422). */
  branchExists?: (repository: string, branch: string) => boolean;
  draftsSupported?: boolean;
  /** The login the token acts as: GitHub refuses it as a reviewer of its own pull requests. */
  tokenLogin?: string;
  /** Logins that may be requested as reviewers (collaborators); default: anyone. */
  collaborators?: string[];
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  paramNames: string[];
  operation: OpenApiOperation;
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: object;
}

interface OpenApiOperation {
  operationId: string;
  parameters?: (OpenApiParameter | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: object }> };
  responses: Record<string, { content?: Record<string, { schema: object }> } | { $ref: string }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    parameters: Record<string, OpenApiParameter>;
    responses: Record<string, { content?: Record<string, { schema: object }> }>;
    examples: Record<string, { value: unknown }>;
  };
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const DOCS = 'https://docs.github.com/rest';

let spec: Spec | undefined;

/** The description is 13 MB: parse it and index its routes once per test file. */
function loadSpec(): Spec {
  spec ??= new Spec();
  return spec;
}

class Spec {
  readonly doc: OpenApiDocument;
  readonly operations: Operation[] = [];
  private readonly strict: Ajv;
  private readonly coercing: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    const require = createRequire(import.meta.url);
    this.doc = require('@octokit/openapi/generated/api.github.com.json') as OpenApiDocument;
    this.strict = addFormats.default(new Ajv({ strict: false, allErrors: true }));
    this.strict.addSchema(this.doc, 'github');
    // GitHub's own format for `owner/name`.
    this.strict.addFormat('repo.nwo', /^[\w.-]+\/[\w.-]+$/);
    // Parameters arrive as strings; GitHub reads `per_page=10` as the integer 10.
    this.coercing = addFormats.default(new Ajv({ strict: false, allErrors: true, coerceTypes: true }));
    this.coercing.addSchema(this.doc, 'github');
    this.coercing.addFormat('repo.nwo', /^[\w.-]+\/[\w.-]+$/);
    for (const [template, item] of Object.entries(this.doc.paths)) {
      const paramNames: string[] = [];
      const source = template
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{([^}]+)\}/g, (_m, name: string) => {
          paramNames.push(name);
          return '([^/]+)';
        });
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}$`),
          paramNames,
          operation,
        });
      }
    }
    // The most specific template wins: fewer parameters first.
    this.operations.sort((a, b) => a.paramNames.length - b.paramNames.length);
  }

  parameter(p: OpenApiParameter | { $ref: string }): OpenApiParameter {
    if ('$ref' in p) {
      const name = p.$ref.replace('#/components/parameters/', '');
      const found = this.doc.components.parameters[name];
      if (!found) throw new Error(`Spec has no parameter ${p.$ref}`);
      return found;
    }
    return p;
  }

  example(name: string): unknown {
    return structuredClone(this.doc.components.examples[name]?.value);
  }

  /** A validator for a schema found inside the document (its $refs point into it). */
  validator(schema: object, coerce: boolean): ValidateFunction {
    const key = `${coerce}:${JSON.stringify(schema)}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = (coerce ? this.coercing : this.strict).compile(absoluteRefs(schema));
      this.cache.set(key, validate);
    }
    return validate;
  }

  responseSchema(op: OpenApiOperation, status: number): object | null {
    let response = op.responses[String(status)];
    if (response && '$ref' in response) {
      response = this.doc.components.responses[response.$ref.replace('#/components/responses/', '')];
    }
    if (!response) return null;
    return response.content?.['application/json']?.schema ?? null;
  }
}

/** Rewrites `#/…` references to point into the document registered as `github`. */
function absoluteRefs(schema: unknown): object {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `github${value}` : value,
    ),
  ) as object;
}

class HttpProblem extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(String(body.message));
    this.status = status;
    this.body = body;
  }
}

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const api = loadSpec();
  const prefix = options.pathPrefix ?? '';
  const pulls: FakePull[] = [];
  const requests: FakeGitHub['requests'] = [];
  const violations: string[] = [];
  const issuedTokens: string[] = [];
  const pullFiles = new Map<string, FakePullFile[]>();
  const reviewerRequests: FakeGitHub['reviewerRequests'] = [];
  let nextNumber = 1;
  let baseUrl = '';

  const violation = (status: number, message: string): never => {
    violations.push(message);
    throw new HttpProblem(status, { message, documentation_url: DOCS, status: String(status) });
  };

  function checkRepoAuth(req: IncomingMessage): void {
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = match?.[1];
    if (token === undefined || !(token === options.token || issuedTokens.includes(token))) {
      throw new HttpProblem(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    }
  }

  function checkAppJwt(req: IncomingMessage): void {
    const app = options.app;
    const match = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const problem = () =>
      new HttpProblem(401, {
        message: 'A JSON web token could not be decoded',
        documentation_url: DOCS,
        status: '401',
      });
    if (!app || !match?.[1]) throw problem();
    const [header, payload, signature] = match[1].split('.');
    if (!header || !payload || !signature) throw problem();
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${header}.${payload}`);
    if (!verifier.verify(createPublicKey(app.publicKeyPem), Buffer.from(signature, 'base64url')))
      throw problem();
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (head.alg !== 'RS256') throw problem();
    if (String(claims.iss) !== app.appId) throw problem();
    if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp - now > 600) throw problem();
    if (typeof claims.iat !== 'number' || claims.iat > now + 60) throw problem();
  }

  function repository(params: Record<string, string>): string {
    const name = `${params.owner}/${params.repo}`;
    if (!options.repositories.includes(name)) {
      throw new HttpProblem(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    }
    return name;
  }

  function pullView(pull: FakePull, full: boolean): Record<string, unknown> {
    const template = api.example(full ? 'pull-request' : 'pull-request-simple-items') as Record<
      string,
      unknown
    >;
    const base = (Array.isArray(template) ? template[0] : template) as Record<string, unknown>;
    const [owner] = pull.repository.split('/');
    const html = `${new URL(baseUrl).origin}/${pull.repository}/pull/${pull.number}`;
    const side = (ref: string, sideTemplate: unknown) => ({
      ...(sideTemplate as Record<string, unknown>),
      ref,
      label: `${owner}:${ref}`,
    });
    return {
      ...base,
      number: pull.number,
      id: 1000 + pull.number,
      url: `${baseUrl}/repos/${pull.repository}/pulls/${pull.number}`,
      html_url: html,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      draft: pull.draft,
      head: side(pull.head, base.head),
      base: side(pull.base, base.base),
      requested_teams: [],
    };
  }

  const handlers: Record<
    string,
    (ctx: HandlerContext) => { status: number; body: unknown; headers?: Record<string, string> }
  > = {
    'pulls/list-files': ({ params, query, req }) => {
      checkRepoAuth(req);
      const repo = repository(params);
      const files = pullFiles.get(`${repo}#${params.pull_number}`);
      if (!files)
        throw new HttpProblem(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      // GitHub lists at most 3,000 files, per_page (at most 100) at a time, with a Link header.
      const perPage = Math.min(Number(query.get('per_page') ?? 30), 100);
      const page = Number(query.get('page') ?? 1);
      const all = files.slice(0, 3000);
      const slice = all.slice((page - 1) * perPage, page * perPage);
      const origin = new URL(baseUrl).origin;
      const self = `${baseUrl}/repos/${repo}/pulls/${params.pull_number}/files`;
      const headers: Record<string, string> = {};
      if (page * perPage < all.length) {
        headers.link = `<${self}?per_page=${perPage}&page=${page + 1}>; rel="next", <${self}?per_page=${perPage}&page=${Math.ceil(all.length / perPage)}>; rel="last"`;
      }
      return {
        status: 200,
        headers,
        body: slice.map((f, i) => ({
          sha: (i + 1).toString(16).padStart(40, '0'),
          filename: f.filename,
          status: f.status,
          additions: f.additions,
          deletions: f.deletions,
          changes: f.additions + f.deletions,
          blob_url: `${origin}/${repo}/blob/main/${f.filename}`,
          raw_url: `${origin}/${repo}/raw/main/${f.filename}`,
          contents_url: `${baseUrl}/repos/${repo}/contents/${f.filename}?ref=main`,
          ...(f.patch !== undefined ? { patch: f.patch } : {}),
          ...(f.previous_filename !== undefined ? { previous_filename: f.previous_filename } : {}),
        })),
      };
    },
    'pulls/request-reviewers': ({ params, body, req }) => {
      checkRepoAuth(req);
      const repo = repository(params);
      const pull = findPull(repo, params);
      const reviewers = (body as { reviewers?: string[] } | undefined)?.reviewers ?? [];
      const refuse = (message: string) => {
        reviewerRequests.push({ repository: repo, number: pull.number, reviewers, status: 422 });
        return new HttpProblem(422, { message, documentation_url: DOCS, status: '422' });
      };
      if (options.tokenLogin !== undefined && reviewers.includes(options.tokenLogin)) {
        throw refuse('Review cannot be requested from pull request author.');
      }
      const outsiders = reviewers.filter((r) => options.collaborators && !options.collaborators.includes(r));
      if (outsiders.length > 0) {
        throw refuse(
          'Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ' +
            repo +
            ' repository.',
        );
      }
      reviewerRequests.push({ repository: repo, number: pull.number, reviewers, status: 201 });
      const user = api.example('simple-user') as Record<string, unknown>;
      return {
        status: 201,
        body: {
          ...pullView(pull, false),
          requested_reviewers: reviewers.map((login) => ({ ...user, login })),
        },
      };
    },
    'pulls/list': ({ params, query, req }) => {
      checkRepoAuth(req);
      const repo = repository(params);
      const state = query.get('state') ?? 'open';
      const head = query.get('head');
      const base = query.get('base');
      const list = pulls.filter(
        (p) =>
          p.repository === repo &&
          (state === 'all' || p.state === state) &&
          (head === null || `${repo.split('/')[0]}:${p.head}` === head) &&
          (base === null || p.base === base),
      );
      const perPage = Number(query.get('per_page') ?? 30);
      return { status: 200, body: list.slice(0, perPage).map((p) => pullView(p, false)) };
    },
    'pulls/create': ({ params, body, req }) => {
      checkRepoAuth(req);
      const repo = repository(params);
      const input = body as { title?: string; head: string; base: string; body?: string; draft?: boolean };
      const head = input.head.includes(':') ? (input.head.split(':')[1] ?? '') : input.head;
      const failed = (message: string) =>
        new HttpProblem(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message }],
          documentation_url: DOCS,
          status: '422',
        });
      if (input.title === undefined) throw failed('title is required');
      if (options.branchExists && !options.branchExists(repo, head)) {
        throw new HttpProblem(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }],
          documentation_url: DOCS,
          status: '422',
        });
      }
      if (pulls.some((p) => p.repository === repo && p.head === head && p.state === 'open')) {
        throw failed(`A pull request already exists for ${repo.split('/')[0]}:${head}.`);
      }
      if (input.draft && options.draftsSupported === false) {
        throw failed('Draft pull requests are not supported in this repository.');
      }
      const pull: FakePull = {
        repository: repo,
        number: nextNumber++,
        state: 'open',
        title: input.title,
        body: input.body ?? null,
        head,
        base: input.base,
        draft: input.draft ?? false,
        updates: 0,
      };
      pulls.push(pull);
      return { status: 201, body: pullView(pull, true) };
    },
    'pulls/get': ({ params, req }) => {
      checkRepoAuth(req);
      return { status: 200, body: pullView(findPull(repository(params), params), true) };
    },
    'pulls/update': ({ params, body, req }) => {
      checkRepoAuth(req);
      const pull = findPull(repository(params), params);
      const input = body as { title?: string; body?: string; state?: 'open' | 'closed' };
      if (input.title !== undefined) pull.title = input.title;
      if (input.body !== undefined) pull.body = input.body;
      if (input.state !== undefined) pull.state = input.state;
      pull.updates++;
      return { status: 200, body: pullView(pull, true) };
    },
    'apps/create-installation-access-token': ({ params, req }) => {
      checkAppJwt(req);
      if (Number(params.installation_id) !== options.app?.installationId) {
        throw new HttpProblem(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      }
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      issuedTokens.push(token);
      const example = api.example('installation-token') as Record<string, unknown>;
      return {
        status: 201,
        body: {
          ...example,
          token,
          expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      };
    },
  };

  function findPull(repo: string, params: Record<string, string>): FakePull {
    const pull = pulls.find((p) => p.repository === repo && p.number === Number(params.pull_number));
    if (!pull) throw new HttpProblem(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    return pull;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const record = { method, path: url.pathname, status: 0 };
    requests.push(record);
    let status = 500;
    let body: unknown;
    let op: Operation | undefined;
    let extraHeaders: Record<string, string> = {};
    try {
      if (!url.pathname.startsWith(prefix))
        violation(404, `${method} ${url.pathname}: outside the API root ${prefix}`);
      const route = url.pathname.slice(prefix.length) || '/';
      const candidates = api.operations.filter((o) => o.pattern.test(route));
      op = candidates.find((o) => o.method === method);
      if (!op) {
        violation(
          candidates.length > 0 ? 405 : 404,
          `${method} ${route}: GitHub's REST API has no such ${candidates.length > 0 ? 'method' : 'route'}`,
        );
        return;
      }
      const where = `${method} ${op.template} (${op.operation.operationId})`;
      if (!req.headers['user-agent']) violation(403, `${where}: GitHub requires a User-Agent header`);
      const values = op.pattern.exec(route)?.slice(1) ?? [];
      const params: Record<string, string> = {};
      op.paramNames.forEach((name, i) => {
        params[name] = decodeURIComponent(values[i] ?? '');
      });
      const declared = (op.operation.parameters ?? []).map((p) => api.parameter(p));
      for (const p of declared) {
        const raw = p.in === 'path' ? params[p.name] : p.in === 'query' ? url.searchParams.get(p.name) : null;
        if (p.in !== 'path' && p.in !== 'query') continue;
        if (raw === null || raw === undefined) {
          if (p.required) violation(422, `${where}: ${p.in} parameter ${p.name} is required`);
          continue;
        }
        const holder = { value: raw as unknown };
        const validate = api.validator({ type: 'object', properties: { value: p.schema ?? {} } }, true);
        if (!validate(holder)) {
          violation(422, `${where}: ${p.in} parameter ${p.name}=${raw} ${describeErrors(validate)}`);
        }
      }
      for (const name of url.searchParams.keys()) {
        if (!declared.some((p) => p.in === 'query' && p.name === name)) {
          violation(422, `${where}: query parameter ${name} is not part of this operation`);
        }
      }
      const text = await readBody(req);
      let json: unknown;
      const requestBody = op.operation.requestBody;
      if (requestBody) {
        const schema = requestBody.content['application/json']?.schema;
        if (text === '') {
          if (requestBody.required) violation(422, `${where}: a JSON body is required`);
        } else {
          if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
            violation(415, `${where}: body must be sent as application/json`);
          }
          try {
            json = JSON.parse(text);
          } catch {
            violation(400, `${where}: body is not valid JSON`);
          }
          if (schema) {
            const validate = api.validator(schema, false);
            if (!validate(json)) violation(422, `${where}: body ${describeErrors(validate)}`);
            const known = (schema as { properties?: Record<string, unknown> }).properties;
            if (known && typeof json === 'object' && json !== null) {
              for (const key of Object.keys(json)) {
                if (!(key in known))
                  violation(422, `${where}: body field ${key} is not part of this operation`);
              }
            }
          }
        }
      } else if (text !== '') {
        violation(422, `${where}: this operation takes no body`);
      }
      const handler = handlers[op.operation.operationId];
      if (!handler) violation(501, `${where}: the fake does not implement this operation`);
      const result = handler?.({ params, query: url.searchParams, body: json, req }) ?? {
        status: 500,
        body: null,
      };
      status = result.status;
      body = result.body;
      extraHeaders = result.headers ?? {};
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      status = error.status;
      body = error.body;
    }
    // Responses are checked too, so the fake cannot drift from what GitHub documents.
    if (op && status < 500) {
      const schema = api.responseSchema(op.operation, status);
      if (schema) {
        const validate = api.validator(schema, false);
        if (!validate(body)) {
          violations.push(
            `fake's ${status} response to ${method} ${op.template} ${describeErrors(validate)}`,
          );
        }
      }
    }
    record.status = status;
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      ...extraHeaders,
    });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`fake crashed: ${String(error)}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return {
    baseUrl,
    pulls,
    requests,
    violations,
    issuedTokens,
    pullFiles,
    reviewerRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface HandlerContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  req: IncomingMessage;
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** An example from GitHub's published description (components/examples), copied. */
export function gitHubExample(name: string): unknown {
  const value = loadSpec().example(name);
  if (value === undefined) throw new Error(`GitHub's description has no example ${name}`);
  return value;
}

/** What is wrong with `value` under a schema of GitHub's description (e.g. a webhook payload's); [] when nothing. */
export function gitHubSchemaErrors(schemaName: string, value: unknown): string[] {
  const validate = loadSpec().validator({ $ref: `#/components/schemas/${schemaName}` }, false);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
