/**
 * What makes a git command run nothing that a repository names. Git obeys a repository's own
 * configuration (`.git/config`, its includes, `config.worktree`), hooks and attributes, and
 * several of those name commands: hooks, `core.fsmonitor`, filter/diff/merge drivers that
 * `.gitattributes` selects by name, pagers, editors, `core.sshCommand`, a remote's
 * `uploadpack`/`receivepack`, signature programs. Docwright runs git inside repositories it did
 * not write (a local repository a person registered, a bare layout an agent committed), so
 * every command gets these settings from the runner (src/integrations/git/git-runner.ts):
 *
 * 1. FIXED_CONFIG, on every command: no hooks, no fsmonitor, no pager, no editor, no signing
 *    or signature checks, no submodule recursion, only the transports Docwright uses, and
 *    `safe.bareRepository=explicit` so a bare layout inside a working tree is never picked up.
 * 2. overridesFor(): the keys whose names a repository chooses (`filter.<x>`, `diff.<x>`,
 *    `merge.<x>`, `protocol.<x>`, `credential.<url>`, `remote.<x>`), found by listing the
 *    command's effective configuration first, and neutralised one by one.
 * 3. SUBCOMMANDS: the git subcommands Docwright may run, each with the flags that turn off what
 *    it would otherwise run (external diff and textconv drivers). Another subcommand is refused
 *    until someone has checked what it runs.
 *
 * Settings given this way are git's "command" scope, which wins over every configuration file.
 */

/** Transports Docwright fetches and pushes over (the remote guard checks the addresses). */
const ALLOWED_PROTOCOLS = ['https', 'http', 'ssh', 'git', 'file'] as const;

export const FIXED_CONFIG: Readonly<Record<string, string>> = {
  // Hooks: a directory that cannot hold any.
  'core.hooksPath': '/dev/null',
  'core.fsmonitor': 'false',
  // A bare repository is used only when named (GIT_DIR), never found by looking around.
  'safe.bareRepository': 'explicit',
  'core.pager': 'cat',
  'core.editor': 'true',
  'sequence.editor': 'true',
  // Credentials come from Docwright only (an empty helper clears the list, URL-specific ones too).
  'credential.helper': '',
  'commit.gpgSign': 'false',
  'tag.gpgSign': 'false',
  'tag.forceSignAnnotated': 'false',
  'push.gpgSign': 'false',
  'log.showSignature': 'false',
  'merge.verifySignatures': 'false',
  'submodule.recurse': 'false',
  'fetch.recurseSubmodules': 'false',
  'push.recurseSubmodules': 'no',
  // A submodule's own configuration is not listed: its working tree is never looked into.
  'diff.ignoreSubmodules': 'all',
  'protocol.allow': 'never',
  ...Object.fromEntries(ALLOWED_PROTOCOLS.map((p) => [`protocol.${p}.allow`, 'always'])),
  'advice.detachedHead': 'false',
  'init.defaultBranch': 'main',
};

// A repository's merge driver becomes git's own three-way text merge (the builtin `text`
// driver's algorithm), so a merge still merges, and a conflict is still a conflict.
export const SAFE_MERGE_DRIVER = 'git merge-file -L ours -L base -L theirs --marker-size=%L %A %O %B';

/** Repository-scope single-valued keys naming a command, and what replaces them. */
const REPOSITORY_COMMAND_KEYS: Readonly<Record<string, string>> = {
  'core.sshcommand': 'ssh',
  // Empty: any path that would still run it fails, instead of running something.
  'diff.external': '',
  // Alternates' refs are a negotiation hint: none is advertised.
  'core.alternaterefscommand': 'true',
  'gpg.program': 'false',
  'gpg.openpgp.program': 'false',
  'gpg.x509.program': 'false',
  'gpg.ssh.program': 'false',
  'gpg.ssh.defaultkeycommand': 'false',
};

const REPOSITORY_SCOPES = new Set(['local', 'worktree']);

/** One entry of `git config --list --show-scope --name-only -z`. */
export interface ConfigEntry {
  scope: string;
  /** As git prints it: section and variable lower-cased, a subsection as written. */
  name: string;
}

/** Parses `git config --list --show-scope --name-only -z`: `scope\0name\0` pairs. */
export function parseConfigListing(listing: string): ConfigEntry[] {
  const parts = listing.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i] ?? '';
    const name = parts[i + 1] ?? '';
    if (name !== '') entries.push({ scope, name });
  }
  return entries;
}

/** `section.sub.section.variable` → its three parts; the subsection may itself hold dots. */
function splitKey(name: string): { section: string; subsection: string | null; variable: string } {
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  if (first < 0) return { section: name, subsection: null, variable: '' };
  return {
    section: name.slice(0, first),
    subsection: first === last ? null : name.slice(first + 1, last),
    variable: name.slice(last + 1),
  };
}

/**
 * The settings that neutralise what the configuration in `entries` names: every filter, diff
 * and merge driver (whatever scope defines it: a driver is selected by the repository's
 * attributes), transports other than Docwright's, URL-specific credential helpers, and the
 * command-naming keys a repository sets for itself. Keys with a newline cannot be settings
 * (git refuses them), so the result is safe to hand to GIT_CONFIG_KEY_n.
 */
export function overridesFor(entries: readonly ConfigEntry[]): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const { scope, name } of entries) {
    if (scope === 'command') continue;
    const { section, subsection, variable } = splitKey(name);
    if (subsection !== null) {
      const key = (v: string) => `${section}.${subsection}.${v}`;
      if (section === 'filter') {
        out.set(key('clean'), '');
        out.set(key('smudge'), '');
        out.set(key('process'), '');
        out.set(key('required'), 'false');
      } else if (section === 'diff') {
        out.set(key('command'), '');
        out.set(key('textconv'), '');
      } else if (section === 'merge') {
        out.set(key('driver'), SAFE_MERGE_DRIVER);
        out.set(key('recursive'), 'text');
      } else if (section === 'protocol' && variable === 'allow') {
        if (!(ALLOWED_PROTOCOLS as readonly string[]).includes(subsection)) out.set(key('allow'), 'never');
      } else if (section === 'credential' && variable === 'helper') {
        out.set(key('helper'), '');
      } else if (section === 'remote' && variable === 'uploadpack') {
        out.set(key('uploadpack'), 'git-upload-pack');
      } else if (section === 'remote' && variable === 'receivepack') {
        out.set(key('receivepack'), 'git-receive-pack');
      }
    }
    const replacement = REPOSITORY_COMMAND_KEYS[name];
    if (replacement !== undefined && REPOSITORY_SCOPES.has(scope)) out.set(name, replacement);
  }
  return [...out].filter(([key]) => !key.includes('\n'));
}

/** Whether the repository's own configuration sets `core.gitProxy` (only an environment variable outranks it). */
export function setsGitProxy(entries: readonly ConfigEntry[]): boolean {
  return entries.some((e) => e.name === 'core.gitproxy' && REPOSITORY_SCOPES.has(e.scope));
}

// Flags that keep a diff-producing command from running a repository's external diff
// (`diff.external`, `diff.<x>.command`) or textconv driver.
const NO_DIFF_DRIVERS = ['--no-ext-diff', '--no-textconv'];

/**
 * The subcommands Docwright runs, with the flags each needs so it runs no repository-named
 * command beyond what FIXED_CONFIG and overridesFor() already turn off. A subcommand missing
 * here is refused: check what it can run (git help <it>: drivers, hooks, helpers) first.
 */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  add: [],
  branch: [],
  'cat-file': [],
  checkout: [],
  clean: [],
  commit: [],
  config: [],
  diff: NO_DIFF_DRIVERS,
  fetch: [],
  'for-each-ref': [],
  // Text files only, no textconv: a connected repository's files as committed.
  grep: ['--no-textconv'],
  'hash-object': [],
  init: [],
  log: NO_DIFF_DRIVERS,
  'ls-remote': [],
  'ls-tree': [],
  merge: [],
  'merge-base': [],
  push: [],
  remote: [],
  reset: [],
  'rev-list': [],
  'rev-parse': [],
  'symbolic-ref': [],
  'update-ref': [],
  version: [],
  worktree: [],
};
