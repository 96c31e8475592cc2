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
  seconds: number;
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
      const started = performance.now();
      const created = await services.jobs.create(await services.projects.get(project.id), task.prompt);
      const deadline = Date.now() + (config.agent.maxTurnSeconds + 60) * 1000;
      let job = created;
      while (job.status === 'active' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        job = await services.jobs.get(project.id, created.id);
      }
      const { turns } = await services.jobs.conversation(project.id, created.id);
      const turn = turns[0];
      const seconds = (performance.now() - started) / 1000;
      const usage = {
        inputTokens: turn?.usage?.inputTokens ?? 0,
        outputTokens: turn?.usage?.outputTokens ?? 0,
      };
      let detail: string | null;
      if (job.status !== 'completed') {
        detail = `job ${job.status}${job.failureReason ? `: ${job.failureReason}` : ''}`;
      } else {
        detail = task.check(branchContext(repo, job.source.ref, job.prLink, turn?.summary ?? ''));
      }
      const result = { task: task.name, passed: detail === null, detail, ...usage, seconds };
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
  for (const [file, content] of Object.entries(setup)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'Example site');
}

/** The job's branch when it was pushed, else the base branch (nothing changed). */
function branchContext(repo: string, branch: string, prLink: string | null, summary: string): EvalContext {
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
