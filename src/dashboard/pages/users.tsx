import { type FormEvent, useState } from 'react';
import type { Role, SignInLinkPayload, UserPayload } from '../api/types.ts';
import { useCreateUser, useDeleteUser, useSignInLink, useUpdateUser, useUsers } from '../api/users.ts';
import { Button } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { useCan, useCurrentUser } from '../components/current-user.tsx';
import { Dialog } from '../components/dialog.tsx';
import { FormError, SelectField, TextField } from '../components/field.tsx';
import { DateTime, formatDateTime } from '../components/format.tsx';
import { Page } from '../components/page.tsx';
import { RemoveDialog } from '../components/remove-dialog.tsx';
import { EmptyState, QueryView } from '../components/states.tsx';
import { Table } from '../components/table.tsx';
import { useToast } from '../components/toasts.tsx';

const ROLES: { value: Role; label: string; hint: string }[] = [
  { value: 'viewer', label: 'Viewer', hint: 'Sees jobs, analytics and settings.' },
  { value: 'admin', label: 'Admin', hint: 'Also creates jobs, manages keys and settings, merges.' },
  { value: 'owner', label: 'Owner', hint: 'Also manages accounts and creates or deletes projects.' },
];

/** Accounts, for owners: add, change roles, reset passwords, make sign-in links, delete. */
export default function UsersPage() {
  const owner = useCan('manage');
  if (!owner) {
    return (
      <Page title="Users">
        <EmptyState title="Only owners manage accounts" />
      </Page>
    );
  }
  return <UsersList />;
}

type Action = { kind: 'password' | 'delete' | 'link'; user: UserPayload } | { kind: 'create' } | null;

function UsersList() {
  const users = useUsers();
  const me = useCurrentUser();
  const update = useUpdateUser();
  const toast = useToast();
  const [action, setAction] = useState<Action>(null);
  const close = () => setAction(null);

  const changeRole = (user: UserPayload, role: Role) =>
    update.mutate(
      { userId: user.id, change: { role } },
      {
        onSuccess: () => toast.success(`${user.email} is now ${role}`),
        onError: (error) => toast.error(error.message),
      },
    );

  return (
    <Page
      title="Users"
      description="Everyone who signs in to this dashboard. Every account sees every project."
      actions={
        <Button variant="primary" onClick={() => setAction({ kind: 'create' })}>
          Add user
        </Button>
      }
    >
      <QueryView query={users} label="Loading users">
        {(list) => (
          <Table
            caption="Users"
            rows={list}
            rowKey={(user) => user.id}
            columns={[
              {
                header: 'Email',
                cell: (user) => (
                  <>
                    <span className="strong">{user.email}</span>
                    {user.id === me.id && <span className="badge badge--accent">you</span>}
                    {!user.hasPassword && <span className="badge">no password yet</span>}
                  </>
                ),
              },
              {
                header: 'Role',
                cell: (user) => (
                  <select
                    className="input select select--inline"
                    aria-label={`Role of ${user.email}`}
                    value={user.role}
                    disabled={update.isPending}
                    onChange={(event) => changeRole(user, event.target.value as Role)}
                  >
                    {ROLES.map((role) => (
                      <option key={role.value} value={role.value}>
                        {role.label}
                      </option>
                    ))}
                  </select>
                ),
              },
              {
                header: 'Last sign-in',
                cell: (user) => <DateTime iso={user.lastSignInAt} style="relative" />,
              },
              { header: 'Created', cell: (user) => <DateTime iso={user.createdAt} /> },
              {
                header: 'Actions',
                hideHeader: true,
                align: 'end',
                cell: (user) => (
                  <div className="button-row">
                    <Button
                      small
                      onClick={() => setAction({ kind: 'link', user })}
                      aria-label={`Sign-in link for ${user.email}`}
                    >
                      Sign-in link
                    </Button>
                    <Button
                      small
                      onClick={() => setAction({ kind: 'password', user })}
                      aria-label={`Reset password of ${user.email}`}
                    >
                      Reset password
                    </Button>
                    <Button
                      small
                      variant="danger"
                      onClick={() => setAction({ kind: 'delete', user })}
                      aria-label={`Delete ${user.email}`}
                    >
                      Delete
                    </Button>
                  </div>
                ),
              },
            ]}
          />
        )}
      </QueryView>
      <Dialog open={action?.kind === 'create'} title="Add a user" onClose={close}>
        <CreateUserForm
          onCancel={close}
          onCreated={(user) => setAction(user.hasPassword ? null : { kind: 'link', user })}
        />
      </Dialog>
      <Dialog
        open={action?.kind === 'password'}
        title={`Reset the password of ${action && 'user' in action ? action.user.email : ''}`}
        onClose={close}
      >
        {action?.kind === 'password' && <ResetPasswordForm user={action.user} onDone={close} />}
      </Dialog>
      <Dialog open={action?.kind === 'link'} title="One-time sign-in link" onClose={close}>
        {action?.kind === 'link' && <SignInLinkPanel user={action.user} onDone={close} />}
      </Dialog>
      <DeleteUserDialog user={action?.kind === 'delete' ? action.user : null} onClose={close} />
    </Page>
  );
}

/** A new account, with a password to hand over, or none: then its sign-in link is made next. */
function CreateUserForm({
  onCancel,
  onCreated,
}: {
  onCancel: () => void;
  onCreated: (user: UserPayload) => void;
}) {
  const create = useCreateUser();
  const toast = useToast();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { email: email.trim(), role, ...(password ? { password } : {}) },
      {
        onSuccess: (user) => {
          toast.success(`Added ${user.email}`);
          onCreated(user);
        },
      },
    );
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="Email"
        type="email"
        required
        autoFocus
        autoComplete="off"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <TextField
        label="Password (optional)"
        type="password"
        autoComplete="new-password"
        hint="Empty: you get a one-time sign-in link to send them, with which they choose their own."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <SelectField
        label="Role"
        value={role}
        hint={ROLES.find((r) => r.value === role)?.hint}
        onChange={(e) => setRole(e.target.value as Role)}
      >
        {ROLES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </SelectField>
      <FormError error={create.error} />
      <div className="dialog__actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={create.isPending}>
          Add user
        </Button>
      </div>
    </form>
  );
}

function ResetPasswordForm({ user, onDone }: { user: UserPayload; onDone: () => void }) {
  const update = useUpdateUser();
  const toast = useToast();
  const [password, setPassword] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { userId: user.id, change: { password } },
      {
        onSuccess: () => {
          toast.success(`Changed the password of ${user.email}`);
          onDone();
        },
      },
    );
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="New password"
        type="password"
        required
        autoFocus
        autoComplete="new-password"
        hint="Their sessions end: they sign in again with the new password."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <FormError error={update.error} />
      <div className="dialog__actions">
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" busy={update.isPending}>
          Set password
        </Button>
      </div>
    </form>
  );
}

function SignInLinkPanel({ user, onDone }: { user: UserPayload; onDone: () => void }) {
  const make = useSignInLink();
  const [link, setLink] = useState<SignInLinkPayload | null>(null);
  return (
    <div className="form">
      {link ? (
        <>
          <p>
            Send this link to {user.email}. It works once, until {formatDateTime(link.expiresAt)}.
          </p>
          <div className="copy-row">
            <code className="copy-row__value">{link.url}</code>
            <CopyButton value={link.url} what="sign-in link" />
          </div>
        </>
      ) : (
        <p>
          {user.hasPassword
            ? `A link lets ${user.email} sign in once within 24 hours and choose a new password: for when they have forgotten theirs.`
            : `${user.email} has no password yet. A link lets them sign in once within 24 hours and choose one.`}
        </p>
      )}
      <FormError error={make.error} />
      <div className="dialog__actions">
        <Button onClick={onDone}>{link ? 'Done' : 'Cancel'}</Button>
        {!link && (
          <Button
            variant="primary"
            busy={make.isPending}
            onClick={() => make.mutate(user.id, { onSuccess: setLink })}
          >
            Make the link
          </Button>
        )}
      </div>
    </div>
  );
}

function DeleteUserDialog({ user, onClose }: { user: UserPayload | null; onClose: () => void }) {
  const removal = useDeleteUser();
  return (
    <RemoveDialog
      item={user}
      removal={removal}
      title={`Delete ${user?.email ?? 'user'}?`}
      confirmLabel="Delete user"
      removed={(u) => `Deleted ${u.email}`}
      onClose={onClose}
    >
      <p>Their sessions end at once. The last owner cannot be deleted.</p>
    </RemoveDialog>
  );
}
