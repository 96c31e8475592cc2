import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { draftPullRequests, resolveCodeHostSettings } from '../domain/agent/code-host.ts';
import { LlmAgent } from '../domain/agent/llm-agent.ts';
import { projectSettings } from '../domain/projects/project-service.ts';
import type { SecretBox } from '../domain/secrets/secret-box.ts';
import { createCodeHost } from '../integrations/codehosts/create-code-host.ts';
import { GitWorkspaces } from '../integrations/git/workspaces.ts';
import { createLanguageModel } from '../integrations/models/create-model.ts';

/** The documentation agent wired to real git, model providers and code hosts. */
export function createLlmAgent(
  config: Config,
  logger: Logger,
  options: { secretBox: SecretBox | null; fetch?: typeof fetch },
): LlmAgent {
  const { providers } = config;
  return new LlmAgent({
    workspaces: new GitWorkspaces({
      dataDir: config.dataDir,
      logger,
      author: { name: config.git.authorName, email: config.git.authorEmail },
      coAuthors: config.git.coAuthors,
    }),
    modelFor: (spec) =>
      createLanguageModel(spec, {
        anthropicApiKey: providers.anthropicApiKey,
        anthropicBaseUrl: providers.anthropicBaseUrl,
        openaiApiKey: providers.openaiApiKey,
        openaiBaseUrl: providers.openaiBaseUrl,
        openaiCompatibleBaseUrl: providers.openaiCompatibleBaseUrl,
        openaiCompatibleApiKey: providers.openaiCompatibleApiKey,
      }),
    codeHostFor: (project, job) =>
      createCodeHost(resolveCodeHostSettings(project, projectSettings(project), options.secretBox), {
        publicUrl: config.publicUrl,
        jobId: job.id,
        repository: job.repository,
        logger,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    draftFor: (project) => draftPullRequests(projectSettings(project)),
    limits: config.agent,
    maxRetries: config.providers.maxRetries,
    logger,
  });
}
