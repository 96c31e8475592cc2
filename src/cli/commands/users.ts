import { createInterface } from 'node:readline/promises';
import type { Role } from '../../domain/access/principal.ts';
import { invalid } from '../../domain/errors.ts';
import { signInLinkUrl } from '../../domain/users/sign-in-links.ts';
import { withServices } from '../context.ts';
import { cliIo } from '../io.ts';
import { print, table } from '../output.ts';
import { readStdin } from '../stdin.ts';

/** The password piped in: one line, its line break dropped; spaces inside are kept. */
async function passwordFromStdin(command: string): Promise<string> {
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (!password) {
    throw invalid(
      `--password-stdin read nothing: pipe the password in, e.g. docwright users ${command} … --password-stdin < password.txt`,
    );
  }
  return password;
}

export async function createUserCommand(options: {
  email: string;
  role: Role;
  passwordStdin: boolean;
  json: boolean;
}) {
  const password = options.passwordStdin ? await passwordFromStdin('create') : null;
  const { user, link } = await withServices(options, async (s) => {
    const user = await s.users.create({ email: options.email, password, role: options.role });
    // Without a password, the account starts with a sign-in link that sets one.
    const link = password === null ? await s.signInLinks.create(user.id) : null;
    return {
      user,
      link: link && { url: signInLinkUrl(s.config.publicUrl, link.token), expiresAt: link.expiresAt },
    };
  });
  print(options.json, { ...user, signInLink: link }, (u) =>
    [
      `Created ${u.role} account ${u.id} (${u.email}).`,
      ...(u.signInLink
        ? [
            `It has no password yet: send this one-time link (valid 24 h, shown once) to its owner:`,
            `  ${u.signInLink.url}`,
          ]
        : []),
    ].join('\n'),
  );
}

export async function listUsersCommand(options: { json: boolean }) {
  const users = await withServices(options, (s) => s.users.list());
  print(options.json, users, (list) =>
    table(
      ['ID', 'EMAIL', 'ROLE', 'CREATED', 'LAST SIGN-IN', 'PASSWORD'],
      list.map((u) => [
        u.id,
        u.email,
        u.role,
        u.createdAt,
        u.lastSignInAt ?? '-',
        u.hasPassword ? 'set' : 'not yet',
      ]),
    ),
  );
}

/** Deletes an account after confirmation (its email typed on a terminal, or --yes); its sessions end. */
export async function deleteUserCommand(idOrEmail: string, options: { yes: boolean; json: boolean }) {
  const deleted = await withServices(options, async (s) => {
    const user = await s.users.find(idOrEmail);
    if (!options.yes) {
      if (!cliIo().stdin.isTTY) {
        throw invalid(`Refusing to delete account ${user.email} without confirmation: add --yes`);
      }
      const prompt = createInterface({ input: cliIo().stdin, output: process.stderr });
      const answer = await prompt.question(
        `Delete the ${user.role} account ${user.email} (${user.id})? Its sessions end. Type its email to confirm: `,
      );
      prompt.close();
      if (answer.trim().toLowerCase() !== user.email) throw invalid('Not confirmed: nothing was deleted');
    }
    return s.users.delete(user.id);
  });
  print(
    options.json,
    { deleted: deleted.id, email: deleted.email },
    (d) => `Deleted account ${d.deleted} (${d.email})`,
  );
}

export async function resetPasswordCommand(idOrEmail: string, options: { json: boolean }) {
  const password = await passwordFromStdin('reset-password');
  const user = await withServices(options, async (s) =>
    s.users.resetPassword((await s.users.find(idOrEmail)).id, password),
  );
  print(
    options.json,
    user,
    (u) => `New password set for ${u.email} (${u.id}); its sessions have ended, so it signs in again.`,
  );
}

export async function signInLinkCommand(options: { email: string; json: boolean }) {
  const link = await withServices(options, async (s) => {
    const created = await s.signInLinks.createForEmail(options.email);
    return {
      userId: created.user.id,
      email: created.user.email,
      url: signInLinkUrl(s.config.publicUrl, created.token),
      expiresAt: created.expiresAt,
    };
  });
  print(options.json, link, (l) =>
    [
      `One-time sign-in link for ${l.email} (valid until ${l.expiresAt}, once; whoever has it can sign in):`,
      `  ${l.url}`,
    ].join('\n'),
  );
}
