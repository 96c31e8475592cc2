import { Command, CommanderError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { ConfigError } from '../config/config.ts';
import { KEY_SCOPES, ROLES } from '../domain/access/principal.ts';
import { LOG_FORMATS } from '../domain/analytics/log-formats.ts';
import { DEFAULT_EXPIRY_DAYS, EXPIRY_DAYS } from '../domain/keys/key-service.ts';
import { addAutomationCommands } from './automation-commands.ts';
import { addContextRepositoryCommands } from './context-repository-commands.ts';
import { type CliIo, withCliIo } from './io.ts';

/**
 * Each command's module, loaded when the command runs: `--help`, a usage error or a quick
 * command does not pay for loading the server and every other command (seconds on a busy machine).
 */
const commands = {
  analyticsImport: () => import('./commands/analytics-import.ts'),
  analyticsMigrate: () => import('./commands/analytics-migrate.ts'),
  analyticsRebuild: () => import('./commands/analytics-rebuild.ts'),
  analyticsReclassify: () => import('./commands/analytics-reclassify.ts'),
  analyticsUpdateLists: () => import('./commands/analytics-update-lists.ts'),
  keys: () => import('./commands/keys.ts'),
  mcp: () => import('./commands/mcp.ts'),
  migrate: () => import('./commands/migrate.ts'),
  projects: () => import('./commands/projects.ts'),
  serve: () => import('./commands/serve.ts'),
  users: () => import('./commands/users.ts'),
  worker: () => import('./commands/worker.ts'),
};

function buildProgram(jsonErrors: boolean, io: CliIo): Command {
  const program = new Command('docwright')
    .description(
      'Docwright: documentation agent jobs and docs analytics. Configured by DOCWRIGHT_* variables.',
    )
    .version(packageJson.version, '-v, --version', 'print the version of Docwright')
    .showHelpAfterError(!jsonErrors)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Usage errors (an unknown option, a missing argument) in the form the caller asked for.
      outputError: (text, write) =>
        write(jsonErrors ? `${JSON.stringify({ error: text.replace(/^error: /, '').trim() })}\n` : text),
    });
  const json = ['--json', 'print machine-readable JSON'] as const;

  program
    .command('serve')
    .description('run the HTTP API and a worker in one process (the embedded default)')
    .option(...json)
    .option('--no-worker', 'serve the API only; run `docwright worker` separately')
    .action(async (o) =>
      (await commands.serve()).serveCommand({ json: Boolean(o.json), worker: o.worker !== false }),
    );
  program
    .command('worker')
    .description('run a worker that takes queued turns (several may share a PostgreSQL database)')
    .option(...json)
    .action(async (o) => (await commands.worker()).workerCommand({ json: Boolean(o.json) }));
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option(...json)
    .action(async (o) => (await commands.migrate()).migrateCommand({ json: Boolean(o.json) }));

  program
    .command('mcp')
    .description(
      "serve Docwright's MCP tools on stdio for a coding agent, talking to a running Docwright (the API key comes from DOCWRIGHT_API_KEY only; see docs/mcp.md)",
    )
    .option('--url <url>', 'the Docwright server (default: DOCWRIGHT_URL)')
    .option('--project <id>', 'the project of the key (default: DOCWRIGHT_PROJECT_ID)')
    .action(async (o) => (await commands.mcp()).mcpCommand({ url: o.url, project: o.project }));

  const projects = program.command('projects').description('manage projects');
  projects
    .command('create')
    .description('create a project for a documentation repository')
    .requiredOption('--name <name>', 'project name')
    .requiredOption('--repo <url-or-path>', 'git URL or local path of the docs repository')
    .option('--ref <branch>', 'base branch', 'main')
    .option(...json)
    .action(async (o) =>
      (await commands.projects()).createProjectCommand({
        name: o.name,
        repo: o.repo,
        ref: o.ref,
        json: Boolean(o.json),
      }),
    );
  projects
    .command('list')
    .description('list projects')
    .option(...json)
    .action(async (o) => (await commands.projects()).listProjectsCommand({ json: Boolean(o.json) }));
  projects
    .command('update')
    .description(
      "change a project's repository, base branch, model, draft setting, web research, monthly budget and code host (credentials are stored encrypted)",
    )
    .argument('<project-id>', 'the project id (prj_…)')
    .option(
      '--repo <url-or-path>',
      'another git URL or local path (checked first; existing jobs keep theirs)',
    )
    .option('--ref <branch>', 'another base branch (checked first)')
    .option('--model <provider:model-id>', 'model for this project, e.g. anthropic:claude-sonnet-4-5')
    .option('--clear-model', 'use the default model (DOCWRIGHT_MODEL) again')
    .option('--draft', 'open pull requests as drafts (the default)')
    .option('--ready', 'open pull requests ready for review')
    .option('--web-research', 'let the agent read web pages (its fetch_url tool)')
    .option('--no-web-research', 'the agent reads no web pages (the default)')
    .option(
      '--monthly-budget <usd>',
      'estimated US dollars the project may spend per calendar month (UTC); once spent, new turns are refused',
    )
    .option('--clear-monthly-budget', 'remove the monthly budget')
    .option('--host <github|gitlab|local>', 'where pull requests are opened')
    .option('--api-url <url>', 'API root: GitHub Enterprise https://HOST/api/v3, GitLab https://HOST/api/v4')
    .option('--host-repo <path>', 'owner/name (GitHub) or group/project (GitLab) when the URL does not tell')
    .option('--token-stdin', 'read an access token from standard input')
    .option('--github-app-id <id>', 'authenticate as a GitHub App: its app id')
    .option('--github-app-installation <id>', "the App's installation id for this repository")
    .option('--github-app-key-file <path>', "the App's private key (PEM)")
    .option('--clear-credentials', 'forget the stored credentials')
    .option(...json)
    .action(async (projectId, o) =>
      (await commands.projects()).updateProjectCommand(projectId, {
        ...o,
        draft: o.ready ? false : o.draft ? true : undefined,
        json: Boolean(o.json),
      }),
    );

  projects
    .command('delete')
    .description('delete a project with its jobs, API keys, settings, working copies and analytics')
    .argument('<project-id>', 'the project id (prj_…)')
    .option('--yes', 'do not ask for confirmation (needed when not on a terminal)')
    .option(...json)
    .action(async (projectId, o) =>
      (await commands.projects()).deleteProjectCommand(projectId, {
        yes: Boolean(o.yes),
        json: Boolean(o.json),
      }),
    );
  addContextRepositoryCommands(projects, json);

  addAutomationCommands(program, json);

  const keys = program
    .command('keys')
    .description('manage API keys (admin, read-only and analytics ingestion)');
  keys
    .command('create')
    .description(
      'create an API key (shown once): admin, read (reads only), or ingest for a docs server that only sends analytics',
    )
    .requiredOption('--project <id>', 'project the key belongs to')
    .option('--name <name>', 'a name to tell keys apart', 'default')
    .addOption(
      new Option(
        '--scope <scope>',
        'admin: everything; read: read jobs, analytics and settings; ingest: send analytics events only',
      )
        .choices(KEY_SCOPES)
        .default('admin'),
    )
    .addOption(
      new Option('--expires-in-days <days>', 'days until the key stops working, or never')
        .choices([...EXPIRY_DAYS.map(String), 'never'])
        .default(String(DEFAULT_EXPIRY_DAYS)),
    )
    .addOption(
      new Option(
        '--allow-ip <ip-or-cidr>',
        'an IP address or CIDR range the key may be used from; repeat for more',
      )
        .argParser((value: string, previous: string[]) => [...previous, value])
        .default([], 'anywhere'),
    )
    .option(...json)
    .action(async (o) =>
      (await commands.keys()).createKeyCommand({
        project: o.project,
        name: o.name,
        scope: o.scope,
        expiresInDays: o.expiresInDays === 'never' ? null : Number(o.expiresInDays),
        allowedIps: o.allowIp,
        json: Boolean(o.json),
      }),
    );
  keys
    .command('list')
    .description("list a project's keys (never the keys themselves)")
    .requiredOption('--project <id>', 'project id')
    .option(...json)
    .action(async (o) =>
      (await commands.keys()).listKeysCommand({ project: o.project, json: Boolean(o.json) }),
    );
  keys
    .command('revoke')
    .description('revoke a key by its id')
    .argument('<key-id>', 'the key id (key_…), as keys list shows it')
    .option(...json)
    .action(async (keyId, o) => (await commands.keys()).revokeKeyCommand(keyId, { json: Boolean(o.json) }));
  const users = program
    .command('users')
    .description('manage dashboard accounts (owner: everything; admin: jobs, keys, settings; viewer: reads)');
  users
    .command('create')
    .description('create an account; without --password-stdin it gets a one-time sign-in link that sets one')
    .requiredOption('--email <email>', "the account's email (it signs in with it)")
    .option('--password-stdin', 'read the password (12+ characters) from standard input')
    .addOption(
      new Option(
        '--role <role>',
        'owner: also accounts and projects; admin: also changes; viewer: reads only',
      )
        .choices(ROLES)
        .default('viewer'),
    )
    .option(...json)
    .action(async (o) =>
      (await commands.users()).createUserCommand({
        email: o.email,
        role: o.role,
        passwordStdin: Boolean(o.passwordStdin),
        json: Boolean(o.json),
      }),
    );
  users
    .command('list')
    .description('list accounts (never their passwords)')
    .option(...json)
    .action(async (o) => (await commands.users()).listUsersCommand({ json: Boolean(o.json) }));
  users
    .command('delete')
    .description('delete an account; its sessions end (the last owner cannot be deleted)')
    .argument('<id-or-email>', 'the account id (usr_…) or email')
    .option('--yes', 'do not ask for confirmation (needed when not on a terminal)')
    .option(...json)
    .action(async (idOrEmail, o) =>
      (await commands.users()).deleteUserCommand(idOrEmail, { yes: Boolean(o.yes), json: Boolean(o.json) }),
    );
  users
    .command('reset-password')
    .description("set an account's password (read from standard input); its sessions end")
    .argument('<id-or-email>', 'the account id (usr_…) or email')
    .requiredOption('--password-stdin', 'read the new password (12+ characters) from standard input')
    .option(...json)
    .action(async (idOrEmail, o) =>
      (await commands.users()).resetPasswordCommand(idOrEmail, { json: Boolean(o.json) }),
    );
  users
    .command('sign-in-link')
    .description('print a new one-time sign-in link (valid 24 h) for an existing account; creates nothing')
    .requiredOption('--email <email>', "the account's email")
    .option(...json)
    .action(async (o) =>
      (await commands.users()).signInLinkCommand({ email: o.email, json: Boolean(o.json) }),
    );

  const analytics = program.command('analytics').description('docs analytics');
  analytics
    .command('import')
    .description(
      'import an access log: nginx/Apache combined or common, W3C (CloudFront), or JSON lines (Cloudflare, Vercel, Fastly, Netlify, CloudFront v2)',
    )
    .argument('<file>', 'the log file, or - to read standard input')
    .requiredOption('--project <id>', 'project the views belong to')
    .addOption(
      new Option('--format <format>', 'log format (default: detected from the first line)').choices(
        LOG_FORMATS,
      ),
    )
    .option(
      '--fields <names>',
      'W3C columns, for a log without a #Fields: line (CloudFront real-time logs), e.g. "timestamp c-ip cs-method cs-uri-stem sc-status cs-user-agent"',
    )
    .option('--workers <n>', 'worker threads for a large file (default: one per core, at most 4)', Number)
    .option(...json)
    .action(async (file, o) =>
      (await commands.analyticsImport()).analyticsImportCommand(file, {
        project: o.project,
        format: o.format ?? (o.fields ? 'w3c' : undefined),
        fields: o.fields,
        workers: o.workers,
        json: Boolean(o.json),
      }),
    );
  analytics
    .command('reclassify')
    .description("classify a project's stored views again with this version's agent list (after an upgrade)")
    .requiredOption('--project <id>', 'project whose views to reclassify')
    .option(...json)
    .action(async (o) =>
      (await commands.analyticsReclassify()).analyticsReclassifyCommand({
        project: o.project,
        json: Boolean(o.json),
      }),
    );
  analytics
    .command('rebuild')
    .description(
      "build a project's first-visit counts again from its stored views (ClickHouse: after the server failed in the middle of an insert); appends to the project wait meanwhile",
    )
    .requiredOption('--project <id>', 'project whose counts to rebuild')
    .option(...json)
    .action(async (o) =>
      (await commands.analyticsRebuild()).analyticsRebuildCommand({
        project: o.project,
        json: Boolean(o.json),
      }),
    );
  analytics
    .command('update-lists')
    .description(
      'fetch the crawler IP ranges that Google, Bing, OpenAI, Anthropic, Perplexity, Apple, Common Crawl and DuckDuckGo publish, so views from them count as verified',
    )
    .option(
      '--source-url-override <url>',
      'fetch every list from <url>/<file> instead of its published URL (a mirror; plain HTTP allowed)',
    )
    .option(...json)
    .action(async (o) =>
      (await commands.analyticsUpdateLists()).analyticsUpdateListsCommand({
        json: Boolean(o.json),
        sourceUrlOverride: o.sourceUrlOverride,
      }),
    );
  analytics
    .command('migrate')
    .description(
      "copy a project's (or every project's) stored views to another analytics backend (resumable: run it again after an interruption), then check counts and exports",
    )
    .option('--project <id>', 'project whose views to copy')
    .option('--all-projects', 'copy every project, one after another')
    .requiredOption(
      '--to <url>',
      'target backend: embedded, postgres://… or clickhouse://user:password@host:8123/database',
    )
    .option('--from <url>', 'source backend (default: the configured one, DOCWRIGHT_ANALYTICS_URL)')
    .option('--batch-size <n>', 'views per target append (default 5000)', Number)
    .option(
      '--load <mode>',
      "auto (default): bulk-load a ClickHouse target that holds none of the project's views, else append; bulk; append",
    )
    .option(...json)
    .action(async (o) =>
      (await commands.analyticsMigrate()).analyticsMigrateCommand({
        ...(o.project ? { project: o.project } : {}),
        allProjects: Boolean(o.allProjects),
        to: o.to,
        ...(o.from ? { from: o.from } : {}),
        ...(o.batchSize ? { batchSize: o.batchSize } : {}),
        ...(o.load ? { load: o.load } : {}),
        json: Boolean(o.json),
      }),
    );
  return program;
}

/**
 * Runs the command line `argv` (as `process.argv`: node, the script, then the arguments) with
 * `io` as its streams and environment, and resolves to the exit code. Errors are reported on
 * io.stderr: as text, or as {"error": "…"} with --json anywhere on the line.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const json = argv.slice(2).includes('--json');
  return withCliIo(io, async () => {
    try {
      await buildProgram(json, io).parseAsync(argv);
      return io.exitCode;
    } catch (error) {
      return reportError(error, json, io);
    }
  });
}

function reportError(error: unknown, json: boolean, io: CliIo): number {
  if (error instanceof CommanderError) return error.exitCode; // commander already printed it
  const write = (text: string, fields: Record<string, unknown>) =>
    io.stderr.write(json ? `${JSON.stringify({ error: text, ...fields })}\n` : `${text}\n`);
  if (error instanceof ConfigError) {
    write(json ? 'Invalid configuration' : error.message, { problems: error.problems });
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  write(json ? message : `Error: ${message}`, {});
  return 1;
}
