import type { ScriptStep } from '../../test/helpers/scripted-openai-server.ts';
import type { EvalContext, EvalTask } from './tasks.ts';

// Tasks that need research: the fact is only in a connected repository's code. Each check
// also wants the file the fact came from among the turn's sources (read, not claimed).

const call = (name: string, args: Record<string, unknown>): ScriptStep => ({
  toolCalls: [{ name, arguments: args }],
});
const cites = (ctx: EvalContext, id: string) =>
  ctx.sources.some((s) => s.kind === 'file' && `${s.repository}:${s.path}` === id)
    ? null
    : `the turn's sources do not include ${id}`;
const first = (checks: (string | null)[]) => checks.find((c) => c !== null) ?? null;

const CLI_OPTIONS = `import { Command } from 'commander';

export function options(program: Command): Command {
  return program
    .option('--retries <count>', 'how often a failed upload is tried again', '3')
    .option('--timeout <seconds>', 'how long one request may take', '30');
}
`;

const PAGINATION = `export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
`;

const ROUTES_BEFORE = `export const routes = {
  list: 'GET /v1/widgets',
  create: 'POST /v1/widgets',
};
`;
const ROUTES_AFTER = `export const routes = {
  list: 'GET /v1/gadgets',
  create: 'POST /v1/gadgets',
};
`;

export const RESEARCH_TASKS: EvalTask[] = [
  {
    name: 'document a flag whose default is only in code',
    prompt: "Document the CLI's --retries flag (what it does and its default) in the quickstart.",
    connected: { cli: { files: { 'src/options.ts': CLI_OPTIONS, 'README.md': '# acme-cli\n' } } },
    check: (ctx) => {
      const page = ctx.read('quickstart.mdx') ?? '';
      return first([
        /--retries/.test(page) ? null : 'quickstart.mdx does not mention --retries',
        /--retries[\s\S]{0,200}\b3\b|\b3\b[\s\S]{0,200}--retries/.test(page)
          ? null
          : 'quickstart.mdx does not give the default, 3',
        cites(ctx, 'cli:src/options.ts'),
      ]);
    },
    script: [
      call('update_plan', {
        items: [
          { title: 'Find the flag in the CLI code', status: 'in_progress' },
          { title: 'Document it in the quickstart', status: 'pending' },
        ],
      }),
      call('search', { pattern: 'retries', repository: '*' }),
      call('read_file', { repository: 'cli', path: 'src/options.ts' }),
      call('update_plan', {
        items: [
          { title: 'Find the flag in the CLI code', status: 'done' },
          { title: 'Document it in the quickstart', status: 'in_progress' },
        ],
      }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: "The response holds the new widget's `id`.",
        new_string:
          "The response holds the new widget's `id`.\n\n## Retries\n\nThe CLI tries a failed upload again: `--retries <count>` sets how often (default 3).",
      }),
      call('finish', {
        summary: 'Documented --retries (default 3, from cli:src/options.ts).',
        pull_request_title: 'Document the --retries flag',
        sources: ['cli:src/options.ts'],
      }),
    ],
  },
  {
    name: 'correct a documented default that disagrees with the code',
    prompt: 'Check the timeout the quickstart documents against the CLI and correct it if it is wrong.',
    setup: {
      'quickstart.mdx':
        '---\ntitle: Quickstart\ndescription: Create your first widget in five minutes.\n---\n\n## Create a widget\n\nRequests time out after 10 seconds; set `--timeout` to change it.\n',
    },
    connected: { cli: { files: { 'src/options.ts': CLI_OPTIONS } } },
    check: (ctx) => {
      const page = ctx.read('quickstart.mdx') ?? '';
      return first([
        /\b10 seconds\b/.test(page) ? 'quickstart.mdx still says 10 seconds' : null,
        /\b30\b/.test(page) ? null : 'quickstart.mdx does not say 30 seconds',
        cites(ctx, 'cli:src/options.ts'),
      ]);
    },
    script: [
      call('read_file', { path: 'quickstart.mdx' }),
      call('search', { pattern: 'timeout', repository: 'cli' }),
      call('read_file', { repository: 'cli', path: 'src/options.ts' }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: 'after 10 seconds',
        new_string: 'after 30 seconds',
      }),
      call('finish', {
        summary: 'The CLI defaults --timeout to 30 seconds; the quickstart said 10.',
        pull_request_title: 'Correct the documented default timeout',
      }),
    ],
  },
  {
    name: 'update the docs after a merged pull request renamed an endpoint',
    prompt: 'Update the documentation for what the merged pull request changed.',
    connected: {
      api: {
        files: { 'src/routes.ts': ROUTES_BEFORE },
        merged: {
          number: 12,
          title: 'Rename widgets to gadgets in the API',
          files: { 'src/routes.ts': ROUTES_AFTER },
        },
      },
    },
    check: (ctx) => {
      const pages = ['quickstart.mdx', 'guides/authentication.mdx'];
      return first([
        ...pages.map((page) =>
          /\/v1\/widgets/.test(ctx.read(page) ?? '') ? `${page} still has /v1/widgets` : null,
        ),
        /\/v1\/gadgets/.test(ctx.read('quickstart.mdx') ?? '')
          ? null
          : 'quickstart.mdx does not use /v1/gadgets',
        cites(ctx, 'api:src/routes.ts'),
      ]);
    },
    script: [
      call('read_file', { repository: 'api', path: 'src/routes.ts' }),
      call('search', { pattern: '/v1/widgets' }),
      call('edit_file', { path: 'quickstart.mdx', old_string: 'v1/widgets', new_string: 'v1/gadgets' }),
      call('edit_file', {
        path: 'guides/authentication.mdx',
        old_string: 'v1/widgets',
        new_string: 'v1/gadgets',
      }),
      call('finish', {
        summary: 'The merged pull request renamed /v1/widgets to /v1/gadgets; the examples follow.',
        pull_request_title: 'Use the renamed /v1/gadgets endpoint',
      }),
    ],
  },
  {
    name: 'answer a question citing code without changing files',
    prompt: 'How many items does a list request return by default? Answer only; do not change any file.',
    connected: { api: { files: { 'src/pagination.ts': PAGINATION } } },
    check: (ctx) =>
      first([
        ctx.prLink === null ? null : 'a pull request was opened for a question',
        /\b25\b/.test(ctx.summary) ? null : 'the answer does not say 25',
        cites(ctx, 'api:src/pagination.ts'),
      ]),
    script: [
      call('search', { pattern: 'PAGE_SIZE', repository: '*' }),
      call('read_file', { repository: 'api', path: 'src/pagination.ts' }),
      call('finish', {
        summary: 'A list request returns 25 items by default (at most 100), per api:src/pagination.ts.',
      }),
    ],
  },
];
