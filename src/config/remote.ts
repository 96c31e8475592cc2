import { ConfigError } from './config.ts';

/** Where a command that talks to a running Docwright (`docwright mcp`) finds it, and with which key. */
export interface RemoteSettings {
  /** The server's origin and path prefix, http or https. */
  url: string;
  /** An API key; read from the environment only, never from the command line. */
  apiKey: string;
  projectId: string;
}

/**
 * Reads DOCWRIGHT_URL, DOCWRIGHT_API_KEY and DOCWRIGHT_PROJECT_ID, the flags winning over the
 * first and last. Nothing else: such a command needs none of the server's settings. Every
 * problem is reported at once, as `loadConfig` does.
 */
export function loadRemoteSettings(
  flags: { url?: string | undefined; project?: string | undefined },
  env: Record<string, string | undefined> = process.env,
): RemoteSettings {
  const problems: string[] = [];
  const url = flags.url ?? env.DOCWRIGHT_URL;
  const apiKey = env.DOCWRIGHT_API_KEY;
  const projectId = flags.project ?? env.DOCWRIGHT_PROJECT_ID;
  if (!url) problems.push('DOCWRIGHT_URL (or --url): the Docwright server to talk to is missing');
  else if (!isHttpUrl(url))
    problems.push(`DOCWRIGHT_URL (or --url) must be an http or https URL (got "${url}")`);
  if (!apiKey) {
    problems.push(
      'DOCWRIGHT_API_KEY: an API key of the project is missing (it is read from the environment only)',
    );
  }
  if (!projectId) problems.push('DOCWRIGHT_PROJECT_ID (or --project): the project of the key is missing');
  if (problems.length > 0 || !url || !apiKey || !projectId) throw new ConfigError(problems);
  return { url, apiKey, projectId };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
