import type { Logger } from 'pino';
import type { CodeHost } from '../../domain/agent/code-host.ts';
import { invalid } from '../../domain/errors.ts';
import { type CodeHostSettings, repositoryPathFromUrl } from '../../domain/projects/code-host-settings.ts';
import { GitHubCodeHost } from './github.ts';
import { GitLabCodeHost } from './gitlab.ts';
import { LocalCodeHost } from './local.ts';

export interface CodeHostContext {
  publicUrl: string;
  jobId: string;
  /** The job's repository (URL or local path); the host's repository path is derived from it. */
  repository: string;
  logger?: Logger;
  /** The fetch the GitHub and GitLab clients use (the outgoing-network policy's; tests give others). */
  fetch?: typeof fetch;
}

/** The code host for one job, from the project's settings (credentials already opened). */
export function createCodeHost(settings: CodeHostSettings, ctx: CodeHostContext): CodeHost {
  const extras = {
    ...(ctx.logger ? { logger: ctx.logger } : {}),
    ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
  };
  switch (settings.kind) {
    case 'local':
      return new LocalCodeHost({
        publicUrl: ctx.publicUrl,
        jobId: ctx.jobId,
        repository: ctx.repository,
        ...extras,
      });
    case 'github': {
      const path = settings.repository ?? repositoryPathFromUrl(ctx.repository);
      const [owner, repo, ...rest] = (path ?? '').split('/');
      if (!owner || !repo || rest.length > 0) {
        throw invalid(
          `Cannot tell the GitHub owner/name of ${ctx.repository}: set it with docwright projects update --host-repo owner/name`,
        );
      }
      return new GitHubCodeHost({ apiUrl: settings.apiUrl, owner, repo, auth: settings.auth, ...extras });
    }
    case 'gitlab': {
      const path = settings.repository ?? repositoryPathFromUrl(ctx.repository);
      if (!path) {
        throw invalid(
          `Cannot tell the GitLab project path of ${ctx.repository}: set it with docwright projects update --host-repo group/project`,
        );
      }
      return new GitLabCodeHost({
        apiUrl: settings.apiUrl,
        projectPath: path,
        token: settings.token,
        ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
      });
    }
  }
}
