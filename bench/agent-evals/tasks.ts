import type { TurnSource } from '../../src/domain/jobs/turn-sources.ts';
import type { ScriptStep } from '../../test/helpers/scripted-openai-server.ts';
import { RESEARCH_TASKS } from './research-tasks.ts';

/** What a check can look at: the job's branch in the project's repository, and the job. */
export interface EvalContext {
  /** A file on the job's branch, or null when absent (or when no branch was pushed). */
  read(file: string): string | null;
  /** Every file path on the job's branch (the base branch when none was pushed). */
  files(): string[];
  prLink: string | null;
  summary: string;
  /** What the turn's change relied on beyond the docs (connected-repository files read, pages fetched). */
  sources: TurnSource[];
  /** Whether the agent set a plan (update_plan) during the turn. */
  planned: boolean;
}

/** A source repository connected to the task's project (name → its files). */
export interface EvalConnected {
  files: Record<string, string>;
  /**
   * A pull request merged after `files`: its files change on top, and the task's job runs as a
   * code-change automation's run for it (so the repository is read at the merge commit).
   */
  merged?: { number: number; title: string; files: Record<string, string> };
}

export interface EvalTask {
  name: string;
  prompt: string;
  /** Changes made to the example site before the task (a bug to fix, say). */
  setup?: Record<string, string>;
  /** Source repositories connected to the project, by name (the harness also checks they stay unchanged). */
  connected?: Record<string, EvalConnected>;
  /** Returns null when the task is done, else what is wrong. */
  check(ctx: EvalContext): string | null;
  /** A correct solution as model replies, used to exercise the harness without a provider. */
  script: ScriptStep[];
}

const call = (name: string, args: Record<string, unknown>): ScriptStep => ({
  toolCalls: [{ name, arguments: args }],
});
const finish = (summary: string, title?: string): ScriptStep =>
  call('finish', { summary, ...(title ? { pull_request_title: title } : {}) });
const pages = (ctx: EvalContext) =>
  ctx.files().filter((f) => /\.mdx?$/.test(f) && !/^(README|AGENTS)\.md$/.test(f));
const all = (checks: (string | null)[]) => checks.find((c) => c !== null) ?? null;
const expectText = (ctx: EvalContext, file: string, pattern: RegExp, what: string) =>
  pattern.test(ctx.read(file) ?? '') ? null : `${file} does not ${what}`;
const navigation = (ctx: EvalContext) => ctx.read('docs.json') ?? '';

// JavaScript source written into the page; its ${…} is the page's own template literal.
const CURL_THEN_JAVASCRIPT = `curl https://api.example.com/v1/widgets -H "Authorization: Bearer $ACME_KEY"
\`\`\`

\`\`\`javascript
const response = await fetch("https://api.example.com/v1/widgets", {
  headers: { Authorization: \`Bearer \${process.env.ACME_KEY}\` },
});
\`\`\`
`;

const RATE_LIMITS = `---
title: Rate limits
description: How many requests you can make, and what happens when you make more.
---

You can make 100 requests per minute with one API key. Past that, the API answers \`429 Too Many Requests\`.
`;

const DOC_TASKS: EvalTask[] = [
  {
    name: 'add a page and its navigation entry',
    prompt:
      'Add a guide about rate limits (100 requests per minute per key; 429 when exceeded) and put it in the navigation.',
    check: (ctx) => {
      const page = ctx.files().find((f) => /^guides\/.*rate.*\.mdx$/.test(f));
      if (!page) return 'no guides/*rate*.mdx page';
      return all([
        /^---\ntitle: .+\ndescription: .+\n---/m.test(ctx.read(page) ?? '')
          ? null
          : `${page} lacks title/description frontmatter`,
        navigation(ctx).includes(`"${page.replace(/\.mdx$/, '')}"`)
          ? null
          : 'docs.json does not list the page',
        /100/.test(ctx.read(page) ?? '') ? null : 'the page does not state the limit',
      ]);
    },
    script: [
      call('read_file', { path: 'docs.json' }),
      call('write_file', { path: 'guides/rate-limits.mdx', content: RATE_LIMITS }),
      call('edit_file', {
        path: 'docs.json',
        old_string: '"guides/webhooks"]',
        new_string: '"guides/webhooks", "guides/rate-limits"]',
      }),
      call('validate', {}),
      finish('Added guides/rate-limits.mdx and its navigation entry.', 'Add a rate limits guide'),
    ],
  },
  {
    name: 'rename the product across pages',
    prompt:
      'Our product is renamed from "Acme Widgets" to "Acme Gadgets". Update every page and the site name.',
    check: (ctx) =>
      all([
        ctx.files().some((f) => /Acme Widgets/.test(ctx.read(f) ?? ''))
          ? 'a file still says Acme Widgets'
          : null,
        /Acme Gadgets/.test(ctx.read('index.mdx') ?? '') ? null : 'index.mdx does not say Acme Gadgets',
        /"name": "Acme Gadgets"/.test(navigation(ctx)) ? null : 'docs.json name not renamed',
      ]),
    script: [
      call('search', { pattern: 'Acme Widgets' }),
      call('edit_file', {
        path: 'index.mdx',
        old_string: 'Acme Widgets lets you',
        new_string: 'Acme Gadgets lets you',
      }),
      call('edit_file', {
        path: 'index.mdx',
        old_string: 'Acme Widgets is an API',
        new_string: 'Acme Gadgets is an API',
      }),
      call('edit_file', { path: 'docs.json', old_string: '"Acme Widgets"', new_string: '"Acme Gadgets"' }),
      call('edit_file', {
        path: 'guides/webhooks.mdx',
        old_string: 'Acme Widgets sends',
        new_string: 'Acme Gadgets sends',
      }),
      call('edit_file', {
        path: 'README.md',
        old_string: 'Acme Widgets documentation',
        new_string: 'Acme Gadgets documentation',
      }),
      call('edit_file', {
        path: 'AGENTS.md',
        old_string: 'the Acme Widgets docs',
        new_string: 'the Acme Gadgets docs',
      }),
      finish('Renamed Acme Widgets to Acme Gadgets everywhere.', 'Rename Acme Widgets to Acme Gadgets'),
    ],
  },
  {
    name: 'fix a broken link',
    prompt: 'The quickstart has a broken link. Find it and fix it.',
    setup: {
      'quickstart.mdx': `---\ntitle: Quickstart\ndescription: Create your first widget in five minutes.\n---\n\n## Get an API key\n\nCreate a key on the [dashboard](https://example.com/dashboard). Read [Authentication](/guides/authentification) to learn how keys work.\n`,
    },
    check: (ctx) =>
      all([
        /\(\/guides\/authentication\)/.test(ctx.read('quickstart.mdx') ?? '')
          ? null
          : 'the link does not point at /guides/authentication',
        /authentification/.test(ctx.read('quickstart.mdx') ?? '') ? 'the broken link is still there' : null,
      ]),
    script: [
      call('validate', {}),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: '/guides/authentification',
        new_string: '/guides/authentication',
      }),
      finish('Fixed the link to the authentication guide.', 'Fix broken link in quickstart'),
    ],
  },
  {
    name: 'add a code example in another language',
    prompt: 'Add a JavaScript (fetch) example after the curl example in the authentication guide.',
    check: (ctx) =>
      all([
        expectText(
          ctx,
          'guides/authentication.mdx',
          /```(javascript|js)\b[\s\S]*fetch\(/,
          'have a JavaScript fetch example',
        ),
        expectText(ctx, 'guides/authentication.mdx', /```bash[\s\S]*```(javascript|js)/, 'keep curl first'),
        expectText(
          ctx,
          'guides/authentication.mdx',
          /```(javascript|js)[\s\S]*Authorization/,
          'send the Authorization header in JavaScript',
        ),
      ]),
    script: [
      call('read_file', { path: 'guides/authentication.mdx' }),
      call('edit_file', {
        path: 'guides/authentication.mdx',
        old_string: 'curl https://api.example.com/v1/widgets -H "Authorization: Bearer $ACME_KEY"\n```\n',
        new_string: CURL_THEN_JAVASCRIPT,
      }),
      finish('Added a JavaScript example.', 'Add a JavaScript authentication example'),
    ],
  },
  {
    name: 'answer a question without changing anything',
    prompt:
      'Which header do webhook requests carry so I can verify them? Only answer; do not change the docs.',
    check: (ctx) =>
      all([
        ctx.prLink === null ? null : 'a pull request was opened for a question',
        /Acme-Signature/.test(ctx.summary) ? null : 'the answer does not name the Acme-Signature header',
      ]),
    script: [
      call('read_file', { path: 'guides/webhooks.mdx' }),
      finish('Webhook requests carry an Acme-Signature header.'),
    ],
  },
  {
    name: 'add missing frontmatter descriptions',
    prompt: 'Every page needs a description in its frontmatter. Add one wherever it is missing.',
    setup: {
      'guides/webhooks.mdx':
        '---\ntitle: Webhooks\n---\n\nAcme Widgets sends a `POST` request to your endpoint when a widget changes.\n',
    },
    check: (ctx) => {
      const missing = pages(ctx).filter(
        (f) => !/^---\n[\s\S]*?description: .+[\s\S]*?\n---/m.test(ctx.read(f) ?? ''),
      );
      return missing.length ? `no description in ${missing.join(', ')}` : null;
    },
    script: [
      call('search', { pattern: '^title:' }),
      call('edit_file', {
        path: 'guides/webhooks.mdx',
        old_string: 'title: Webhooks\n',
        new_string: 'title: Webhooks\ndescription: Get notified when a widget changes.\n',
      }),
      finish('Added the missing description to the webhooks guide.', 'Add missing page descriptions'),
    ],
  },
  {
    name: 'remove a page and every reference to it',
    prompt: 'We no longer support webhooks. Remove the webhooks guide and anything that links to it.',
    check: (ctx) =>
      all([
        ctx.files().includes('guides/webhooks.mdx') ? 'guides/webhooks.mdx still exists' : null,
        navigation(ctx).includes('guides/webhooks') ? 'docs.json still lists it' : null,
        pages(ctx).some((f) => /\/guides\/webhooks/.test(ctx.read(f) ?? ''))
          ? 'a page still links to it'
          : null,
      ]),
    script: [
      call('search', { pattern: 'webhooks' }),
      call('delete_file', { path: 'guides/webhooks.mdx' }),
      call('edit_file', { path: 'docs.json', old_string: ', "guides/webhooks"', new_string: '' }),
      call('validate', {}),
      finish('Removed the webhooks guide and its navigation entry.', 'Remove the webhooks guide'),
    ],
  },
  {
    name: 'move a page and update navigation and links',
    prompt:
      'Move the API overview page to api-reference/introduction, and keep navigation and links working.',
    check: (ctx) =>
      all([
        ctx.files().includes('api-reference/introduction.mdx')
          ? null
          : 'api-reference/introduction.mdx missing',
        ctx.files().includes('api-reference/overview.mdx') ? 'the old page is still there' : null,
        navigation(ctx).includes('"api-reference/introduction"') ? null : 'docs.json not updated',
        navigation(ctx).includes('api-reference/overview') ? 'docs.json still lists the old path' : null,
      ]),
    script: [
      call('move_file', { from: 'api-reference/overview.mdx', to: 'api-reference/introduction.mdx' }),
      call('edit_file', {
        path: 'docs.json',
        old_string: '"api-reference/overview"',
        new_string: '"api-reference/introduction"',
      }),
      call('validate', {}),
      finish('Moved the API overview to api-reference/introduction.', 'Move API overview to introduction'),
    ],
  },
  {
    name: 'update a product fact everywhere',
    prompt:
      'The API base URL is now https://api.acme.dev/v2 (it was https://api.example.com/v1). Update the docs.',
    check: (ctx) =>
      all([
        pages(ctx).some((f) => /api\.example\.com\/v1/.test(ctx.read(f) ?? ''))
          ? 'a page still has the old base URL'
          : null,
        expectText(
          ctx,
          'api-reference/overview.mdx',
          /https:\/\/api\.acme\.dev\/v2/,
          'state the new base URL',
        ),
      ]),
    script: [
      call('search', { pattern: 'api\\.example\\.com/v1' }),
      call('edit_file', {
        path: 'api-reference/overview.mdx',
        old_string: 'https://api.example.com/v1',
        new_string: 'https://api.acme.dev/v2',
      }),
      call('edit_file', {
        path: 'quickstart.mdx',
        old_string: 'https://api.example.com/v1/widgets',
        new_string: 'https://api.acme.dev/v2/widgets',
      }),
      call('edit_file', {
        path: 'guides/authentication.mdx',
        old_string: 'https://api.example.com/v1/widgets',
        new_string: 'https://api.acme.dev/v2/widgets',
      }),
      finish('Updated the base URL to https://api.acme.dev/v2.', 'Update the API base URL'),
    ],
  },
  {
    name: 'add a warning callout',
    prompt:
      'In the authentication guide, add a warning (use the <Warning> component) that keys must never be committed to source control.',
    check: (ctx) =>
      expectText(
        ctx,
        'guides/authentication.mdx',
        /<Warning>[\s\S]*(commit|source control)[\s\S]*<\/Warning>/i,
        'have the warning',
      ),
    script: [
      call('edit_file', {
        path: 'guides/authentication.mdx',
        old_string: 'Keys are secret.',
        new_string: '<Warning>Never commit API keys to source control.</Warning>\n\nKeys are secret.',
      }),
      finish('Added a warning about committing keys.', 'Warn against committing API keys'),
    ],
  },
  {
    name: 'fix spelling mistakes',
    prompt: 'Fix the spelling mistakes on the introduction page.',
    setup: {
      'index.mdx':
        '---\ntitle: Introduction\ndescription: Acme Widgets lets you build, store and ship widgets through one API.\n---\n\nAcme Widgets is an API for creating and managin widgets. You recieve an event for every change.\n',
    },
    check: (ctx) =>
      all([
        /managin |recieve/.test(ctx.read('index.mdx') ?? '') ? 'a misspelling remains' : null,
        expectText(ctx, 'index.mdx', /managing widgets/, 'say "managing widgets"'),
        expectText(ctx, 'index.mdx', /receive/, 'say "receive"'),
      ]),
    script: [
      call('read_file', { path: 'index.mdx' }),
      call('edit_file', { path: 'index.mdx', old_string: 'managin widgets', new_string: 'managing widgets' }),
      call('edit_file', { path: 'index.mdx', old_string: 'You recieve', new_string: 'You receive' }),
      finish('Fixed two spelling mistakes.', 'Fix spelling on the introduction'),
    ],
  },
];

export const TASKS: EvalTask[] = [...DOC_TASKS, ...RESEARCH_TASKS];
