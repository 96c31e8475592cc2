import type { CodeHostProvider } from '../../domain/automations/code-change/events.ts';
import type {
  PullRequestChanges,
  PullRequestReader,
} from '../../domain/automations/code-change/pull-request-changes.ts';
import type { CodeHostSettings } from '../../domain/projects/code-host-settings.ts';
import { CodeHostError } from './code-host-error.ts';
import { GitHubCodeHost } from './github.ts';
import { GitLabCodeHost } from './gitlab.ts';

/**
 * Reads source pull requests with a project's code host settings: the same API root and
 * credentials as its docs pull requests, pointed at the source repository. The API root is
 * always the project's own, never one a webhook names.
 */
export class CodeHostPullRequestReader implements PullRequestReader {
  private readonly settings: CodeHostSettings;
  private readonly fetch: typeof fetch | undefined;

  constructor(settings: CodeHostSettings, options: { fetch?: typeof fetch } = {}) {
    this.settings = settings;
    this.fetch = options.fetch;
  }

  async changes(pr: {
    provider: CodeHostProvider;
    repository: string;
    number: number;
  }): Promise<PullRequestChanges> {
    const settings = this.settings;
    const extras = this.fetch ? { fetch: this.fetch } : {};
    if (settings.kind === 'github' && pr.provider === 'github') {
      const [owner, repo, ...rest] = pr.repository.split('/');
      if (!owner || !repo || rest.length > 0) {
        throw new CodeHostError(`GitHub: ${pr.repository} is not an owner/name repository`, null);
      }
      const host = new GitHubCodeHost({
        apiUrl: settings.apiUrl,
        owner,
        repo,
        auth: settings.auth,
        ...extras,
      });
      return host.pullRequestChanges(pr.number);
    }
    if (settings.kind === 'gitlab' && pr.provider === 'gitlab') {
      const host = new GitLabCodeHost({
        apiUrl: settings.apiUrl,
        projectPath: pr.repository,
        token: settings.token,
        ...extras,
      });
      return host.pullRequestChanges(pr.number);
    }
    throw new CodeHostError(
      `Reading a ${pr.provider === 'github' ? 'GitHub pull request' : 'GitLab merge request'} needs the project's code host to be ${pr.provider === 'github' ? 'GitHub' : 'GitLab'} with credentials that can read ${pr.repository} (it is ${settings.kind})`,
      null,
    );
  }
}
