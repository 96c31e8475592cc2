import { pino } from 'pino';
import { ALLOW_SETTING, type OutboundPolicy } from '../../domain/network/outbound-policy.ts';
import { isLocalRepository } from '../../domain/projects/code-host-settings.ts';
import { allowedAddresses, ForbiddenAddressError } from '../network/guarded-lookup.ts';
import { GitRunner } from './git-runner.ts';

/** A remote the outgoing-network policy refuses, or whose host cannot be resolved to check it. */
export class RemoteRefusedError extends Error {
  /** The host did not resolve (it may later); otherwise the policy refused it. */
  readonly unresolved: boolean;
  constructor(message: string, unresolved = false) {
    super(message);
    this.name = 'RemoteRefusedError';
    this.unresolved = unresolved;
  }
}

/**
 * Checks a git remote against the outgoing-network policy just before git connects to it,
 * and returns the `-c` settings that hold git to what was checked.
 *
 * - A path on this machine or a file:// URL (the local code host) is allowed: no network.
 * - http(s): the host is resolved and checked here, and git is told to connect to that
 *   address (`http.curloptResolve`, so curl does not resolve the name again: no DNS
 *   rebinding) and not to follow redirects (`http.followRedirects=false`: a redirect would
 *   be resolved by curl, unchecked).
 * - ssh://, user@host:path and git://: the host is resolved and checked the same way, but
 *   not pinned, since ssh and the git protocol do not go through curl; a name that changes
 *   its answer between the check and the connection is the gap left. These protocols carry
 *   only their own fixed handshake, never a request Docwright's user shapes.
 * - Any other scheme is refused.
 */
export async function guardRemote(
  policy: OutboundPolicy,
  repository: string,
): Promise<Record<string, string>> {
  if (isLocalRepository(repository) || policy.allowsAll) return {};
  const remote = remoteHost(repository);
  if (remote === null) {
    throw new RemoteRefusedError(
      'Refused: not a remote Docwright fetches (http(s)://, ssh://, git:// or user@host:path, with no password, backslash or space) nor a local path',
    );
  }
  const addresses = await allowedAddresses(policy, remote.host).catch((error: unknown) => {
    if (error instanceof ForbiddenAddressError) throw new RemoteRefusedError(error.message);
    // Unresolved here, git could still resolve it itself, unchecked: it is not run.
    throw new RemoteRefusedError(`Cannot resolve ${remote.host}: ${(error as Error).message}`, true);
  });
  if (remote.port === null) return {};
  const config: Record<string, string> = { 'http.followRedirects': 'false' };
  const bareHost = remote.host.replace(/^\[(.*)\]$/, '$1');
  if (addresses.some((a) => a.address !== bareHost)) {
    // Every allowed address, IPv4 first: curl tries them in turn, and no other.
    const list = [...addresses]
      .sort((a, b) => a.family - b.family)
      .map((a) => (a.family === 6 ? `[${a.address}]` : a.address));
    // An older git ignores the setting without a word: it would resolve the name itself, unchecked.
    if (!(await gitPinsAddresses())) {
      throw new RemoteRefusedError(
        `Refused: git 2.37 or later is needed to hold git to the checked address of ${remote.host} (http.curloptResolve); upgrade git, or set ${ALLOW_SETTING}=true`,
      );
    }
    config['http.curloptResolve'] = `${remote.host}:${remote.port}:${list.join(',')}`;
  }
  return config;
}

/** The host of a remote URL, with the port for http(s) (null for the others); null when not a remote. */
function remoteHost(repository: string): { host: string; port: number | null } | null {
  // Backslashes, spaces and passwords are where URL parsers disagree (git's curl could see
  // another host than the one checked here): such remotes are not taken at all.
  if (/[\\\s]/.test(repository)) return null;
  const scp = /^[^@/]+@([^:/]+):(?!\/\/)/.exec(repository);
  if (scp?.[1]) return { host: scp[1], port: null };
  if (!URL.canParse(repository)) return null;
  const url = new URL(repository);
  if (url.hostname === '' || url.password !== '') return null;
  if (url.username !== '' && !/^(ssh|git\+ssh|ssh\+git):$/.test(url.protocol)) return null;
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { host: url.hostname, port };
  }
  if (/^(ssh|git|git\+ssh|ssh\+git):$/.test(url.protocol)) return { host: url.hostname, port: null };
  return null;
}

let pinsAddresses: Promise<boolean> | null = null;

/** Whether the installed git knows http.curloptResolve (2.37+); asked once per process. */
function gitPinsAddresses(): Promise<boolean> {
  pinsAddresses ??= new GitRunner({ logger: pino({ level: 'silent' }) }).run(['version'], {}).then(
    ({ stdout }) => {
      const [, major, minor] = /(\d+)\.(\d+)/.exec(stdout) ?? [];
      return Number(major) > 2 || (Number(major) === 2 && Number(minor) >= 37);
    },
    () => false,
  );
  return pinsAddresses;
}
