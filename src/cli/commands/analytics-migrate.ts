import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openAnalyticsStore } from '../../app/open-analytics.ts';
import { type AnalyticsBackendConfig, parseAnalyticsBackend } from '../../config/analytics-backend.ts';
import { agentOperators } from '../../domain/analytics/agent-list.ts';
import type { CheckpointStore, CopyCheckpoint, CopyProgress } from '../../domain/analytics/copy-views.ts';
import { copyViews } from '../../domain/analytics/copy-views.ts';
import type { AnalyticsStore, TimeRange, ViewScanner } from '../../domain/analytics/store.ts';
import { systemClock } from '../../domain/clock.ts';
import { openContext } from '../context.ts';
import { cliIo } from '../io.ts';
import { print } from '../output.ts';

export interface MigrateOptions {
  /** One project, or every project when `allProjects`. */
  project?: string;
  allProjects?: boolean;
  to: string;
  from?: string;
  batchSize?: number;
  /** `bulk`, `append`, or `auto` (the default): see CopyOptions.load. */
  load?: string;
  json: boolean;
}

export interface MigrateResult {
  project: string;
  copied: number;
  sourceViews: number;
  targetViews: number;
  exportsEqual: boolean;
}

/**
 * `docwright analytics migrate (--project ID | --all-projects) --to URL [--from URL]`: copies
 * the views to another backend, resumable (a checkpoint file per project in the data dir), then
 * checks the counts and compares the exports on a few ranges; exits non-zero when they differ.
 * With every project, each is copied and checked in turn, and a mismatch in one does not stop
 * the others.
 */
export async function analyticsMigrateCommand(options: MigrateOptions): Promise<void> {
  if ((options.project === undefined) === !options.allProjects) {
    throw new Error('Give either --project <id> or --all-projects');
  }
  const load = LOAD_MODES[options.load ?? 'auto'];
  if (load === undefined) throw new Error('--load must be auto, bulk or append');
  const { config, logger, services } = await openContext({ newDataDirNotice: options });
  const stores: Array<AnalyticsStore & ViewScanner> = [];
  try {
    const projects =
      options.project === undefined
        ? (await services.projects.list()).map((p) => p.id)
        : [(await services.projects.get(options.project)).id]; // a clear "not found" first
    const problems: string[] = [];
    const context = {
      database: config.database,
      schema: config.database.kind === 'postgres' ? config.database.schema : null,
      embeddedFile: config.analytics.file ?? path.join(config.dataDir, 'analytics.sqlite'),
    };
    const target = parseAnalyticsBackend(options.to, context, problems);
    // By default the store the server uses: an older installation on PostgreSQL keeps its embedded file.
    const source =
      options.from === undefined
        ? services.analyticsBackend
        : parseAnalyticsBackend(options.from, context, problems);
    if (problems.length > 0)
      throw new Error(problems.map((p) => p.replace('DOCWRIGHT_ANALYTICS_URL', '--to/--from')).join('; '));
    if (sameBackend(source, target)) throw new Error('--to names the same analytics backend as the source');
    const open = (backend: AnalyticsBackendConfig) =>
      openAnalyticsStore(backend, {
        durability: 'full',
        locks: services.storage.locks,
        clock: systemClock,
        logger,
      });
    const from = await open(source);
    stores.push(from);
    const to = await open(target);
    stores.push(to);
    const results: MigrateResult[] = [];
    for (const project of projects) {
      const checkpointFile = path.join(
        config.dataDir,
        'analytics-migrate',
        `${project}-${createHash('sha256').update(describe(source)).update('\0').update(describe(target)).digest('hex').slice(0, 16)}.json`,
      );
      const progress = new ProgressLine(options.json, projects.length > 1 ? `${project}: ` : '');
      const copied = await copyViews({
        projectId: project,
        source: from,
        target: to,
        checkpoints: new FileCheckpoints(checkpointFile),
        ...(options.batchSize ? { batchSize: options.batchSize } : {}),
        load,
        onProgress: (p) => progress.update(p),
      });
      progress.end();
      results.push({
        project,
        copied: copied.copied,
        sourceViews: await from.countViews(project),
        targetViews: await to.countViews(project),
        exportsEqual: await sameExports(from, to, project),
      });
    }
    const failed = results.filter((r) => r.sourceViews !== r.targetViews || !r.exportsEqual);
    if (failed.length > 0) cliIo().exitCode = 1;
    if (options.project !== undefined) {
      const [result] = results as [MigrateResult];
      if (failed.length > 0)
        print(options.json, { error: mismatch(result), ...result }, (r) => `Error: ${r.error}`);
      else print(options.json, result, describeResult);
      return;
    }
    const summary = {
      ...(failed.length > 0 ? { error: failed.map(mismatch).join('; ') } : {}),
      projects: results,
    };
    print(options.json, summary, (r) =>
      [
        ...r.projects.map((p) => (failed.includes(p) ? `Error: ${mismatch(p)}` : describeResult(p))),
        `${r.projects.length - failed.length} of ${r.projects.length} projects copied and checked.`,
      ].join('\n'),
    );
  } finally {
    for (const store of stores) await store.close();
    await services.close();
  }
}

const LOAD_MODES: Readonly<Record<string, 'auto' | 'always' | 'never'>> = {
  auto: 'auto',
  bulk: 'always',
  append: 'never',
};

function describeResult(r: MigrateResult): string {
  return `Copied ${r.copied.toLocaleString('en')} views of ${r.project}; the target holds ${r.targetViews.toLocaleString('en')} views, as the source does, and its exports are the same.`;
}

function mismatch(r: MigrateResult): string {
  if (r.sourceViews !== r.targetViews) {
    return `the target holds ${r.targetViews} views of ${r.project}, the source ${r.sourceViews}: not the same (was another process writing to either?)`;
  }
  return `the target's exports for ${r.project} differ from the source's`;
}

/** A backend's identity without its password (the checkpoint's file name comes from it). */
function describe(backend: AnalyticsBackendConfig): string {
  switch (backend.kind) {
    case 'embedded':
      return `embedded ${backend.file}`;
    case 'postgres': {
      const url = new URL(backend.url);
      url.password = '';
      return `postgres ${url.href} ${backend.schema ?? ''}`;
    }
    case 'clickhouse':
      return `clickhouse ${backend.url} ${backend.database}`;
  }
}

function sameBackend(a: AnalyticsBackendConfig, b: AnalyticsBackendConfig): boolean {
  return describe(a) === describe(b);
}

/** The exports on a few ranges: everything, the last 30 days, and the first full UTC day. */
async function sameExports(a: AnalyticsStore, b: AnalyticsStore, projectId: string): Promise<boolean> {
  const day = 86_400_000;
  const now = Math.floor(Date.now() / day) * day;
  const ranges: TimeRange[] = [
    { from: null, to: null },
    { from: now - 30 * day, to: now + day },
    { from: now - 1 * day - day / 2, to: now },
  ];
  const exportsOf = async (store: AnalyticsStore) => {
    const out: unknown[] = [];
    for (const range of ranges) {
      // verifiedOnly with the crawler setting on: the copy kept each view's verified flag.
      for (const [countAiCrawlersAsAi, verifiedOnly] of [
        [false, false],
        [true, false],
        [true, true],
      ] as const) {
        for (const measure of ['visitors', 'views'] as const) {
          const query = { range, measure, limit: 1000, offset: 0, countAiCrawlersAsAi, verifiedOnly };
          out.push(await store.pages(projectId, query));
        }
      }
      if (range.from !== null) {
        const query = { range, interval: 'day' as const, countAiCrawlersAsAi: false, verifiedOnly: false };
        out.push(await store.timeSeries(projectId, query));
      }
      for (const verifiedOnly of [false, true])
        out.push(await store.breakdown(projectId, { range, operatorOf: agentOperators(), verifiedOnly }));
    }
    return JSON.stringify(out);
  };
  return (await exportsOf(a)) === (await exportsOf(b));
}

/** The checkpoint as a JSON file, replaced atomically (written, synced, renamed). */
class FileCheckpoints implements CheckpointStore {
  private readonly file: string;
  constructor(file: string) {
    this.file = file;
  }

  async load(): Promise<CopyCheckpoint | null> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as CopyCheckpoint;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async save(checkpoint: CopyCheckpoint): Promise<void> {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(checkpoint));
    const fd = openSync(temporary, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.file);
  }
}

/** One redrawn line on a terminal; a plain line per tenth otherwise (or with --json). */
class ProgressLine {
  private readonly tty: boolean;
  private lastTenth = -1;
  private readonly label: string;
  constructor(json: boolean, label: string) {
    this.tty = !json && Boolean(cliIo().stderr.isTTY);
    this.label = label;
  }

  update({ copied, total }: CopyProgress): void {
    const share = total === 0 ? 1 : Math.min(1, copied / total);
    if (this.tty) {
      const width = 30;
      const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
      cliIo().stderr.write(
        `\r${this.label}[${bar}] ${(share * 100).toFixed(1)}% ${copied.toLocaleString('en')}/${total.toLocaleString('en')} views`,
      );
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth === this.lastTenth) return;
    this.lastTenth = tenth;
    cliIo().stderr.write(`${this.label}copied ${copied} of ${total} views\n`);
  }

  end(): void {
    if (this.tty) cliIo().stderr.write('\n');
  }
}
