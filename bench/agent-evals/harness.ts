import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createWorker, openServices } from '../../src/app/services.ts';
import { loadConfig } from '../../src/config/config.ts';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.ts';
import { type EvalContext, type EvalTask, TASKS } from './tasks.ts';

const EXAMPLE_SITE = fileURLToPath(new URL('../../examples/docs-site', import.meta.url));

export interface EvalResult {
  task: string;
  passed: boolean;
  /** What the check found wrong, or why the job did not complete. */
  detail: string | null;
  inputTokens: number;
  outputTokens: number;
  /** Estimated from the price table; null when the model has no price. */
  costUsd: number | null;
  seconds: number;
  /** Whether the agent set a plan (update_plan). */
  planned: boolean;
  /** How many sources the turn recorded (connected-repository files read, pages fetched). */
  sources: number;
}

export interface EvalOptions {
  /** `scripted`: each task's own correct solution, replayed by a local OpenAI-compatible server. */
  mode: 'provider' | 'scripted';
  /** Configuration (DOCWRIGHT_MODEL, provider keys, DATABASE_URL…); the data dir is made here. */
  env: Record<string, string | undefined>;
  tasks?: EvalTask[];
  onResult?: (result: EvalResult) => void;
}

/** Runs each task as a real job on a fresh copy of the example site and checks the result. */
export async function runEvals(options: EvalOptions): Promise<EvalResult[]> {
  const work = mkdtempSync(path.join(tmpdir(), 'docwright-evals-'));
  let scripted: ScriptedOpenAIServer | null = null;
  const env = { ...options.env, DOCWRIGHT_DATA_DIR: path.join(work, 'data'), DOCWRIGHT_LOG_LEVEL: 'silent' };
  if (options.mode === 'scripted') {
    scripted = await startScriptedOpenAIServer([], { apiKey: 'evals' });
    Object.assign(env, {
      DOCWRIGHT_MODEL: 'openai-compatible:scripted',
      DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: scripted.baseUrl,
      DOCWRIGHT_OPENAI_COMPATIBLE_API_KEY: 'evals',
      DOCWRIGHT_POLL_INTERVAL_MS: '50',
    });
  }
  const config = loadConfig(env);
  const silent = pino({ level: 'silent' });
  const services = await openServices(config, silent);
  const worker = createWorker(services, silent);
  worker.start();
  const results: EvalResult[] = [];
  try {
    for (const [index, task] of (options.tasks ?? TASKS).entries()) {
      const repo = path.join(work, `repo-${index}`);
      createRepository(repo, task.setup ?? {});
      scripted?.push(...task.script);
      const project = await services.projects.create({ name: task.name, repository: repo });
      const connected = connectRepositories(work, index, task);
      for (const { name, dir } of connected) {
        await services.contextRepositories.add(project.id, { name, repository: dir });
      }
      const started = performance.now();
      const created = await startJob(services, project.id, task, connected);
      const deadline = Date.now() + (config.agent.maxTurnSeconds + 60) * 1000;
      let job = await services.jobs.get(project.id, created.id);
      while (job.status === 'active' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        job = await services.jobs.get(project.id, created.id);
      }
      const { turns, messages } = await services.jobs.conversation(project.id, created.id);
      const turn = turns[0];
      const seconds = (performance.now() - started) / 1000;
      const usage = {
        inputTokens: turn?.usage?.inputTokens ?? 0,
        outputTokens: turn?.usage?.outputTokens ?? 0,
      };
      const planned = messages.some((m) => m.role === 'plan');
      let detail: string | null;
      if (job.status !== 'completed') {
        detail = `job ${job.status}${job.failureReason ? `: ${job.failureReason}` : ''}`;
      } else {
        detail =
          changedConnected(connected) ??
          task.check({
            ...branchContext(repo, job.source.ref, job.prLink, turn?.summary ?? ''),
            sources: turn?.sources ?? [],
            planned,
          });
      }
      const costUsd = turn?.usage?.costUsd ?? null;
      const result = {
        task: task.name,
        passed: detail === null,
        detail,
        ...usage,
        costUsd,
        seconds,
        planned,
        sources: turn?.sources.length ?? 0,
      };
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    await worker.stop();
    await services.close();
    await scripted?.close();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Evals', '-c', 'user.email=evals@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

function createRepository(dir: string, setup: Record<string, string>): void {
  cpSync(EXAMPLE_SITE, dir, { recursive: true });
  writeFilesIn(dir, setup);
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'Example site');
}

interface ConnectedRepo {
  name: string;
  dir: string;
  /** Its commit once set up (the merge commit, for a merged pull request). */
  head: string;
  merged: { number: number; title: string } | null;
}

/** The task's source repositories, each a git repository with its files (and its merged pull request's). */
function connectRepositories(work: string, index: number, task: EvalTask): ConnectedRepo[] {
  return Object.entries(task.connected ?? {}).map(([name, spec]) => {
    const dir = path.join(work, `connected-${index}-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFilesIn(dir, spec.files);
    git(dir, 'init', '--quiet', '--initial-branch=main');
    git(dir, 'add', '--all');
    git(dir, 'commit', '--quiet', '-m', 'Source');
    if (spec.merged) {
      writeFilesIn(dir, spec.merged.files);
      git(dir, 'commit', '--quiet', '--all', '-m', `${spec.merged.title} (#${spec.merged.number})`);
    }
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    return { name, dir, head, merged: spec.merged ?? null };
  });
}

/**
 * The task's job: a plain job, or, when a connected repository has a merged pull request, the
 * run of a code-change automation for it (its repository read at the merge commit).
 */
async function startJob(
  services: Awaited<ReturnType<typeof openServices>>,
  projectId: string,
  task: EvalTask,
  connected: ConnectedRepo[],
): Promise<{ id: string }> {
  const merged = connected.find((c) => c.merged !== null);
  if (!merged?.merged) return services.jobs.create(await services.projects.get(projectId), task.prompt);
  const created = await services.automations.create(projectId, {
    name: task.name,
    trigger: { kind: 'code_change', provider: 'github', repository: `acme/${merged.name}` },
    instructions: task.prompt,
  });
  const automation = await services.automations.find(projectId, created.id);
  const url = `https://github.com/acme/${merged.name}/pull/${merged.merged.number}`;
  const started = await services.automations.startRun(automation, {
    kind: 'code_change',
    dedupeKey: `eval:${merged.name}#${merged.merged.number}`,
    context: `A pull request was merged in acme/${merged.name}: ${url}\nTitle: ${merged.merged.title}`,
    source: {
      url,
      title: merged.merged.title,
      number: merged.merged.number,
      repository: { url: merged.dir, ref: 'main', commit: merged.head },
    },
  });
  if (!started.jobId) throw new Error(`the automation run did not start a job (${started.status})`);
  return { id: started.jobId };
}

/** What is wrong when a connected repository was changed (nothing may write to one). */
function changedConnected(connected: ConnectedRepo[]): string | null {
  for (const { name, dir, head } of connected) {
    if (git(dir, 'status', '--porcelain').trim() !== '' || git(dir, 'rev-parse', 'HEAD').trim() !== head) {
      return `the connected repository ${name} was changed`;
    }
  }
  return null;
}

function writeFilesIn(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
}

/** The job's branch when it was pushed, else the base branch (nothing changed). */
function branchContext(
  repo: string,
  branch: string,
  prLink: string | null,
  summary: string,
): Omit<EvalContext, 'sources' | 'planned'> {
  const pushed = git(repo, 'branch', '--list', branch).trim() !== '';
  const ref = pushed ? branch : 'main';
  return {
    read: (file) => {
      try {
        return git(repo, 'show', `${ref}:${file}`);
      } catch {
        return null;
      }
    },
    files: () => git(repo, 'ls-tree', '-r', '--name-only', ref).split('\n').filter(Boolean),
    prLink,
    summary,
  };
}
