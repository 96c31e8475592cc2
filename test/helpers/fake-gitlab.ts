import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * GitLab's merge request REST API (v4) as far as Docwright uses it, with the request and
 * response shapes of https://docs.gitlab.com/api/merge_requests/: list a project's merge
 * requests, create one, update one. Requests are validated strictly (declared parameters
 * only, required ones present, types right, JSON bodies); anything else is answered with
 * GitLab's error shape and recorded in `violations`, which a test should expect empty.
 * Merge requests live in memory.
 */
export interface FakeGitLab {
  /** API root, e.g. http://127.0.0.1:PORT/api/v4 */
  apiUrl: string;
  mergeRequests: FakeMergeRequest[];
  requests: { method: string; path: string; status: number }[];
  violations: string[];
  close(): Promise<void>;
}

export interface FakeMergeRequest {
  projectPath: string;
  iid: number;
  title: string;
  description: string | null;
  sourceBranch: string;
  targetBranch: string;
  state: 'opened' | 'closed' | 'merged';
  updates: number;
  /** The author's user name (default: the token's user, docwright). */
  author?: string;
  /** Assigned user ids (PUT assignee_ids). */
  assigneeIds?: number[];
  /** What GET …/diffs lists (a source merge request's changes). */
  diffs?: FakeDiff[];
}

/** One entry of GET /projects/:id/merge_requests/:iid/diffs. */
export interface FakeDiff {
  old_path: string;
  new_path: string;
  diff: string;
  new_file?: boolean;
  renamed_file?: boolean;
  deleted_file?: boolean;
}

export interface FakeGitLabOptions {
  /** `group/project` paths that exist; their numeric ids are 1, 2, … in this order. */
  projects: string[];
  token: string;
  branchExists?: (projectPath: string, branch: string) => boolean;
  /** Users GET /users?username= finds. */
  users?: { id: number; username: string }[];
}

// Query strings arrive as text and are read as numbers or booleans; JSON bodies must have the right types.
const coercing = new Ajv({ allErrors: true, coerceTypes: true });
const strict = new Ajv({ allErrors: true });
const compile = (
  properties: Record<string, object>,
  required: string[] = [],
  ajv = strict,
): ValidateFunction => ajv.compile({ type: 'object', properties, required, additionalProperties: false });

const id = { type: 'integer', minimum: 1 };
const ids = { type: 'array', items: id };
const bool = { type: 'boolean' };
const str = { type: 'string' };
const labels = { anyOf: [str, { type: 'array', items: str }] };

// GET /projects/:id/merge_requests — the documented query attributes.
const listQuery = compile(
  {
    state: { enum: ['opened', 'closed', 'locked', 'merged', 'all'] },
    order_by: { enum: ['created_at', 'updated_at', 'merged_at', 'title'] },
    sort: { enum: ['asc', 'desc'] },
    milestone: str,
    view: { enum: ['simple'] },
    labels: str,
    with_labels_details: bool,
    with_merge_status_recheck: bool,
    created_after: str,
    created_before: str,
    updated_after: str,
    updated_before: str,
    scope: { enum: ['created_by_me', 'assigned_to_me', 'all'] },
    author_id: id,
    author_username: str,
    assignee_id: str,
    reviewer_id: str,
    reviewer_username: str,
    my_reaction_emoji: str,
    source_branch: str,
    target_branch: str,
    search: str,
    in: str,
    wip: { enum: ['yes', 'no'] },
    iids: str,
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    page: { type: 'integer', minimum: 1 },
  },
  [],
  coercing,
);

// POST /projects/:id/merge_requests
const createBody = compile(
  {
    source_branch: { type: 'string', minLength: 1 },
    target_branch: { type: 'string', minLength: 1 },
    title: { type: 'string', minLength: 1 },
    allow_collaboration: bool,
    approvals_before_merge: id,
    allow_maintainer_to_push: bool,
    assignee_id: id,
    assignee_ids: ids,
    description: { type: 'string', maxLength: 1_048_576 },
    labels,
    milestone_id: id,
    remove_source_branch: bool,
    reviewer_ids: ids,
    squash: bool,
    target_project_id: id,
  },
  ['source_branch', 'target_branch', 'title'],
);

// GET /projects/:id/merge_requests/:iid/diffs
const diffsQuery = compile(
  {
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
    unidiff: bool,
  },
  [],
  coercing,
);

// GET /users (the attributes Docwright uses: looking a user up by name)
const usersQuery = compile(
  {
    username: str,
    search: str,
    active: bool,
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: 100 },
  },
  [],
  coercing,
);

// PUT /projects/:id/merge_requests/:merge_request_iid
const updateBody = compile({
  add_labels: labels,
  allow_collaboration: bool,
  allow_maintainer_to_push: bool,
  assignee_id: id,
  assignee_ids: ids,
  description: { type: 'string', maxLength: 1_048_576 },
  discussion_locked: bool,
  labels,
  milestone_id: id,
  remove_labels: labels,
  remove_source_branch: bool,
  reviewer_ids: ids,
  squash: bool,
  state_event: { enum: ['close', 'reopen'] },
  target_branch: str,
  title: str,
});

class Problem extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(JSON.stringify(body));
    this.status = status;
    this.body = body;
  }
}

export async function startFakeGitLab(options: FakeGitLabOptions): Promise<FakeGitLab> {
  const mergeRequests: FakeMergeRequest[] = [];
  const requests: FakeGitLab['requests'] = [];
  const violations: string[] = [];
  let origin = '';
  const bad = (status: number, message: string): never => {
    violations.push(message);
    throw new Problem(status, { error: message });
  };

  function project(rawId: string): { path: string; id: number } {
    const decoded = decodeURIComponent(rawId);
    const index = /^\d+$/.test(decoded) ? Number(decoded) - 1 : options.projects.indexOf(decoded);
    const path = options.projects[index];
    if (path === undefined) throw new Problem(404, { message: '404 Project Not Found' });
    return { path, id: index + 1 };
  }

  function view(mr: FakeMergeRequest): Record<string, unknown> {
    const projectId = options.projects.indexOf(mr.projectPath) + 1;
    const draft = /^(draft:|\[draft\]|\(draft\))/i.test(mr.title);
    const authorName = mr.author ?? 'docwright';
    const author = {
      id: options.users?.find((u) => u.username === authorName)?.id ?? 1,
      username: authorName,
      name: authorName,
      state: 'active',
      avatar_url: null,
      web_url: `${origin}/${authorName}`,
    };
    const now = new Date().toISOString();
    return {
      id: projectId * 1000 + mr.iid,
      iid: mr.iid,
      project_id: projectId,
      title: mr.title,
      description: mr.description,
      state: mr.state,
      created_at: now,
      updated_at: now,
      merged_by: null,
      merge_user: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
      target_branch: mr.targetBranch,
      source_branch: mr.sourceBranch,
      user_notes_count: 0,
      upvotes: 0,
      downvotes: 0,
      author,
      assignees: (mr.assigneeIds ?? []).map((id) => ({
        id,
        username: options.users?.find((u) => u.username && u.id === id)?.username ?? `user${id}`,
        name: `User ${id}`,
        state: 'active',
        avatar_url: null,
        web_url: `${origin}/user${id}`,
      })),
      assignee: null,
      reviewers: [],
      source_project_id: projectId,
      target_project_id: projectId,
      labels: [],
      draft,
      work_in_progress: draft,
      milestone: null,
      merge_when_pipeline_succeeds: false,
      merge_status: 'checking',
      detailed_merge_status: 'checking',
      sha: null,
      merge_commit_sha: null,
      squash_commit_sha: null,
      discussion_locked: null,
      should_remove_source_branch: null,
      force_remove_source_branch: false,
      reference: `!${mr.iid}`,
      references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${mr.projectPath}!${mr.iid}` },
      web_url: `${origin}/${mr.projectPath}/-/merge_requests/${mr.iid}`,
      time_stats: {
        time_estimate: 0,
        total_time_spent: 0,
        human_time_estimate: null,
        human_total_time_spent: null,
      },
      squash: false,
      task_completion_status: { count: 0, completed_count: 0 },
      has_conflicts: false,
      blocking_discussions_resolved: true,
    };
  }

  function validate(check: ValidateFunction, value: unknown, where: string): void {
    if (!check(value)) {
      const detail = (check.errors ?? [])
        .map((e) =>
          e.keyword === 'additionalProperties'
            ? `${String(e.params.additionalProperty)} is not a documented attribute`
            : `${e.instancePath.slice(1) || String(e.params.missingProperty ?? '')} ${e.message ?? 'is invalid'}`,
        )
        .join(', ');
      bad(400, `${where}: ${detail}`);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const record = { method, path: url.pathname, status: 0 };
    requests.push(record);
    let status = 200;
    let body: unknown;
    let headers: Record<string, string> = {};
    try {
      const token =
        req.headers['private-token'] ?? /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (token !== options.token) throw new Problem(401, { message: '401 Unauthorized' });
      const where = `${method} ${url.pathname}`;
      const text = await readBody(req);
      if (url.pathname === '/api/v4/users') {
        if (method !== 'GET' || text !== '') bad(405, `${where}: only GET without a body is implemented`);
        validate(usersQuery, Object.fromEntries(url.searchParams), where);
        const name = url.searchParams.get('username');
        const found = (options.users ?? []).filter((u) => name === null || u.username === name);
        body = found.map((u) => ({
          id: u.id,
          username: u.username,
          name: u.username,
          state: 'active',
          locked: false,
          avatar_url: null,
          web_url: `${origin}/${u.username}`,
        }));
        record.status = status;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
        return;
      }
      // The project id is one path segment: a number or the URL-encoded full path.
      const match = /^\/api\/v4\/projects\/([^/]+)\/merge_requests(?:\/([^/]+)(\/diffs)?)?$/.exec(
        url.pathname,
      );
      if (!match?.[1]) bad(404, `${method} ${url.pathname}: not an endpoint of the merge requests API`);
      const proj = project(match?.[1] ?? '');
      const iidText = match?.[2];
      const diffsPath = match?.[3] !== undefined;
      headers = {};
      let json: unknown;
      if (text !== '') {
        if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
          bad(415, `${where}: body must be JSON`);
        try {
          json = JSON.parse(text);
        } catch {
          bad(400, `${where}: body is not valid JSON`);
        }
      }
      const findMr = () => {
        const mr = mergeRequests.find((m) => m.projectPath === proj.path && String(m.iid) === iidText);
        if (!mr) throw new Problem(404, { message: '404 Not found' });
        return mr;
      };
      if (method === 'GET' && diffsPath) {
        if (text !== '') bad(400, `${where}: GET takes no body`);
        validate(diffsQuery, Object.fromEntries(url.searchParams), where);
        const all = findMr().diffs ?? [];
        const perPage = Number(url.searchParams.get('per_page') ?? 20);
        const page = Number(url.searchParams.get('page') ?? 1);
        const pages = Math.max(1, Math.ceil(all.length / perPage));
        headers['x-page'] = String(page);
        headers['x-per-page'] = String(perPage);
        headers['x-total'] = String(all.length);
        headers['x-total-pages'] = String(pages);
        headers['x-next-page'] = page < pages ? String(page + 1) : '';
        body = all.slice((page - 1) * perPage, page * perPage).map((d) => ({
          old_path: d.old_path,
          new_path: d.new_path,
          a_mode: d.new_file ? '0' : '100644',
          b_mode: d.deleted_file ? '0' : '100644',
          diff: d.diff,
          new_file: d.new_file ?? false,
          renamed_file: d.renamed_file ?? false,
          deleted_file: d.deleted_file ?? false,
          generated_file: false,
        }));
      } else if (method === 'GET' && iidText !== undefined) {
        if (text !== '') bad(400, `${where}: GET takes no body`);
        if (url.searchParams.size > 0) bad(400, `${where}: the fake reads no query attributes here`);
        body = view(findMr());
      } else if (method === 'GET' && iidText === undefined) {
        if (text !== '') bad(400, `${where}: GET takes no body`);
        const query = Object.fromEntries(url.searchParams);
        validate(listQuery, query, where);
        const state = url.searchParams.get('state') ?? 'all';
        const source = url.searchParams.get('source_branch');
        const target = url.searchParams.get('target_branch');
        const list = mergeRequests
          .filter(
            (mr) =>
              mr.projectPath === proj.path &&
              (state === 'all' || mr.state === state) &&
              (source === null || mr.sourceBranch === source) &&
              (target === null || mr.targetBranch === target),
          )
          .reverse();
        body = list.slice(0, Number(url.searchParams.get('per_page') ?? 20)).map(view);
      } else if (method === 'POST' && iidText === undefined) {
        validate(createBody, json, where);
        const input = json as {
          source_branch: string;
          target_branch: string;
          title: string;
          description?: string;
        };
        if (options.branchExists && !options.branchExists(proj.path, input.source_branch)) {
          throw new Problem(400, { message: ['Source branch does not exist'] });
        }
        const existing = mergeRequests.find(
          (mr) =>
            mr.projectPath === proj.path &&
            mr.state === 'opened' &&
            mr.sourceBranch === input.source_branch &&
            mr.targetBranch === input.target_branch,
        );
        if (existing) {
          throw new Problem(409, {
            message: [`Another open merge request already exists for this source branch: !${existing.iid}`],
          });
        }
        const mr: FakeMergeRequest = {
          projectPath: proj.path,
          iid: mergeRequests.filter((m) => m.projectPath === proj.path).length + 1,
          title: input.title,
          description: input.description ?? null,
          sourceBranch: input.source_branch,
          targetBranch: input.target_branch,
          state: 'opened',
          updates: 0,
        };
        mergeRequests.push(mr);
        status = 201;
        body = view(mr);
      } else if (method === 'PUT' && iidText !== undefined && !diffsPath) {
        validate(updateBody, json ?? {}, where);
        const input = (json ?? {}) as {
          title?: string;
          description?: string;
          state_event?: string;
          assignee_ids?: number[];
        };
        if (Object.keys(input).length === 0) bad(400, `${where}: at least one attribute must be given`);
        const mr = findMr();
        if (input.assignee_ids !== undefined) mr.assigneeIds = input.assignee_ids;
        if (input.title !== undefined) mr.title = input.title;
        if (input.description !== undefined) mr.description = input.description;
        if (input.state_event === 'close') mr.state = 'closed';
        if (input.state_event === 'reopen') mr.state = 'opened';
        mr.updates++;
        body = view(mr);
      } else {
        bad(405, `${where}: the fake does not implement this method`);
      }
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      status = error.status;
      body = error.body;
    }
    record.status = status;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      violations.push(`fake crashed: ${String(error)}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${origin}/api/v4`,
    mergeRequests,
    requests,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
