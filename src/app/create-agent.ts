import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { DocumentationAgent } from '../domain/agent/documentation-agent.ts';
import type { ContextDeps } from '../domain/agent/research/open-context.ts';
import { setParseStore } from '../domain/agent/tools/validation/parse-store.ts';
import { draftPullRequests, resolveCodeHostSettings } from '../domain/projects/code-host-settings.ts';
import type { SecretBox } from '../domain/secrets/secret-box.ts';
import { createCodeHost } from '../integrations/codehosts/create-code-host.ts';
import { GitContextRepositories } from '../integrations/git/context-repositories.ts';
import { GitWorkspaces } from '../integrations/git/workspaces.ts';
import { createLanguageModel, type ProviderKeys } from '../integrations/models/create-model.ts';
import { guardedFetch } from '../integrations/network/guarded-fetch.ts';
import { FileParseStore } from '../integrations/parse-store/file-parse-store.ts';
import { HttpWebReader } from '../integrations/web/http-web-reader.ts';

/** The documentation agent wired to real git, model providers and code hosts. */
export function createDocumentationAgent(
  config: Config,
  logger: Logger,
  options: {
    secretBox: SecretBox | null;
    fetch?: typeof fetch;
    workspaces?: GitWorkspaces;
    /** The projects' connected repositories; without them the agent reads the docs repository only. */
    context?: ContextDeps;
  },
): DocumentationAgent {
  // Page parses outlive a restart: the first job after one does not parse its site again.
  const parses = new FileParseStore(path.join(config.dataDir, 'validation-parses'), logger);
  setParseStore(parses);
  parses.tidy().catch((error: unknown) => logger.warn({ err: error }, 'tidying the parse store failed'));
  // Code-host API roots are set by a person: their calls go through the outgoing-network policy.
  const codeHostFetch = options.fetch ?? guardedFetch(config.outbound);
  return new DocumentationAgent({
    workspaces: options.workspaces ?? createWorkspaces(config, logger),
    modelFor: (spec) => createLanguageModel(spec, providerKeys(config)),
    codeHostFor: (project, job) =>
      createCodeHost(resolveCodeHostSettings(project, project.settings, options.secretBox), {
        publicUrl: config.publicUrl,
        jobId: job.id,
        repository: job.repository,
        logger,
        fetch: codeHostFetch,
      }),
    draftFor: (project) => draftPullRequests(project.settings),
    limits: config.agent,
    maxRetries: config.providers.maxRetries,
    logger,
    // Pages are read only for projects that turn web research on, under the same policy.
    webReader: new HttpWebReader({ policy: config.outbound }),
    ...(options.context ? { context: options.context } : {}),
  });
}

/** The connected repositories' mirrors of every project under the data dir. */
export function createContextRepositories(config: Config, logger: Logger): GitContextRepositories {
  return new GitContextRepositories({
    dataDir: config.dataDir,
    logger,
    refreshMs: config.git.contextRefreshMinutes * 60_000,
    network: config.outbound,
  });
}

/**
 * Why the configured default model cannot be used (a provider key or address missing), or
 * null when it can or when none is configured. Checked at start, without calling the provider.
 */
export function defaultModelProblem(config: Config): string | null {
  if (config.model === null) return null;
  try {
    createLanguageModel(config.model, providerKeys(config));
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function providerKeys(config: Config): ProviderKeys {
  const { providers } = config;
  return {
    anthropicApiKey: providers.anthropicApiKey,
    anthropicBaseUrl: providers.anthropicBaseUrl,
    openaiApiKey: providers.openaiApiKey,
    openaiBaseUrl: providers.openaiBaseUrl,
    openaiCompatibleBaseUrl: providers.openaiCompatibleBaseUrl,
    openaiCompatibleApiKey: providers.openaiCompatibleApiKey,
  };
}

/** The git working copies of every project under the data dir. */
export function createWorkspaces(config: Config, logger: Logger): GitWorkspaces {
  return new GitWorkspaces({
    dataDir: config.dataDir,
    logger,
    author: { name: config.git.authorName, email: config.git.authorEmail },
    coAuthors: config.git.coAuthors,
    network: config.outbound,
  });
}
