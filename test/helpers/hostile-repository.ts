import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// Every hook git can run around the commands Docwright uses (and a few more).
const HOOKS = [
  'applypatch-msg',
  'commit-msg',
  'fsmonitor-watchman',
  'post-applypatch',
  'post-checkout',
  'post-commit',
  'post-index-change',
  'post-merge',
  'post-receive',
  'post-rewrite',
  'post-update',
  'pre-applypatch',
  'pre-auto-gc',
  'pre-commit',
  'pre-merge-commit',
  'pre-push',
  'pre-rebase',
  'pre-receive',
  'prepare-commit-msg',
  'proc-receive',
  'push-to-checkout',
  'reference-transaction',
  'sendemail-validate',
  'update',
];

/** The attributes that select the hostile drivers; commit this file into the repository. */
export const HOSTILE_ATTRIBUTES =
  '*.mdx filter=evil diff=evil merge=evil\n*.json filter=evilp diff=evil merge=evil\n';

/**
 * Arms the repository at `repo` (a working tree with `.git`, or a bare repository) with every
 * way its configuration, hooks and attributes can name a command: each command only creates a
 * file named for itself in `markers`. Returns the names of the markers made so far.
 *
 * The configuration is included from `.git/hostile.config`, so `disarm()` (for the test's own
 * git commands) takes it and the hooks away and `arm()` puts them back.
 */
export function armHostileRepository(repo: string, markers: string) {
  const gitDir = existsSync(path.join(repo, '.git')) ? path.join(repo, '.git') : repo;
  mkdirSync(markers, { recursive: true });
  const mark = (name: string) => `touch '${path.join(markers, name)}'`;
  const config = `[core]
\tfsmonitor = "${mark('core.fsmonitor')}; echo"
\tpager = "${mark('core.pager')}; cat"
\teditor = "${mark('core.editor')}"
\tsshCommand = "${mark('core.sshCommand')}"
\tgitProxy = "${mark('core.gitProxy')}"
\taskPass = "${mark('core.askPass')}"
\talternateRefsCommand = "${mark('core.alternateRefsCommand')}"
[sequence]
\teditor = "${mark('sequence.editor')}"
[filter "evil"]
\tclean = "${mark('filter.clean')}; cat"
\tsmudge = "${mark('filter.smudge')}; cat"
\trequired = true
[filter "evilp"]
\tprocess = "${mark('filter.process')}"
\trequired = true
[diff]
\texternal = "${mark('diff.external')}"
[diff "evil"]
\ttextconv = "${mark('diff.textconv')}; cat"
\tcommand = "${mark('diff.command')}"
[merge "evil"]
\tname = hostile merge driver
\tdriver = "${mark('merge.driver')}; false"
[merge]
\tverifySignatures = true
[log]
\tshowSignature = true
[gpg]
\tprogram = "${mark('gpg.program')}"
[pager]
\tlog = "${mark('pager.log')}; cat"
\tdiff = "${mark('pager.diff')}; cat"
[protocol "ext"]
\tallow = always
[remote "origin"]
\turl = ext::sh -c ${mark('remote.ext')}
\tuploadpack = "${mark('remote.uploadpack')}"
\treceivepack = "${mark('remote.receivepack')}"
[credential "http://127.0.0.1"]
\thelper = "!${mark('credential.helper')}"
[submodule]
\trecurse = true
`;
  writeFileSync(path.join(gitDir, 'hostile.config'), config);
  writeFileSync(path.join(gitDir, 'config'), `[include]\n\tpath = hostile.config\n`, { flag: 'a' });
  const hooks = path.join(gitDir, 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const hook of HOOKS) {
    const file = path.join(hooks, hook);
    writeFileSync(file, `#!/bin/sh\n${mark(`hook.${hook}`)}\ncat >/dev/null 2>&1\nexit 0\n`);
    chmodSync(file, 0o755);
  }
  const move = (from: string, to: string) => {
    if (existsSync(from)) renameSync(from, to);
  };
  return {
    markers: () => readdirSync(markers).sort(),
    disarm: () => {
      move(path.join(gitDir, 'hostile.config'), path.join(gitDir, 'hostile.config.off'));
      move(hooks, `${hooks}.off`);
    },
    arm: () => {
      move(path.join(gitDir, 'hostile.config.off'), path.join(gitDir, 'hostile.config'));
      move(`${hooks}.off`, hooks);
    },
  };
}
