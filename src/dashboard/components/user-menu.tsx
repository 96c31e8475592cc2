import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { forgetSession, useChangePassword, useSignOut } from '../api/session.ts';
import { Button } from './button.tsx';
import { useCurrentUser } from './current-user.tsx';
import { Dialog } from './dialog.tsx';
import { FormError, TextField } from './field.tsx';
import { UserIcon } from './icons.tsx';
import { useToast } from './toasts.tsx';

/** The account's menu in the header: who is signed in, change password, sign out (everywhere). */
export function UserMenu() {
  const user = useCurrentUser();
  const signOut = useSignOut();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const [changing, setChanging] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    // Escape closes the menu and gives focus back to its button; a click elsewhere just closes it.
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape') return;
        setOpen(false);
        button.current?.focus();
      } else if (!menu.current?.contains(event.target as Node)) {
        setOpen(false);
      }
    };
    document.addEventListener('keydown', close);
    document.addEventListener('pointerdown', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('pointerdown', close);
    };
  }, [open]);

  const leave = async (everywhere: boolean) => {
    try {
      await signOut.mutateAsync(everywhere);
    } catch (error) {
      toast.error(error instanceof Error ? error.message : 'Could not sign out');
      return;
    }
    navigate('/sign-in', { replace: true });
    forgetSession(queryClient);
    toast.success(everywhere ? 'Signed out on every device' : 'Signed out');
  };

  return (
    <div className="user-menu" ref={menu}>
      <button
        ref={button}
        type="button"
        className="user-menu__button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
      >
        <UserIcon />
        <span className="user-menu__email">{user.email}</span>
        <span className="visually-hidden">: account menu</span>
      </button>
      <div id={panelId} className="user-menu__panel" hidden={!open}>
        <p className="user-menu__who">
          <span className="user-menu__panel-email">{user.email}</span>
          <span className="badge">{user.role}</span>
        </p>
        <button
          type="button"
          className="user-menu__item"
          onClick={() => {
            setOpen(false);
            setChanging(true);
          }}
        >
          Change password
        </button>
        <button type="button" className="user-menu__item" onClick={() => leave(false)}>
          Sign out
        </button>
        <button type="button" className="user-menu__item" onClick={() => leave(true)}>
          Sign out everywhere
        </button>
      </div>
      <Dialog open={changing} title="Change your password" onClose={() => setChanging(false)}>
        <ChangePasswordForm email={user.email} onDone={() => setChanging(false)} />
      </Dialog>
    </div>
  );
}

// The server's rule (src/domain/users/account-fields.ts), checked here only to say so sooner.
const MIN_PASSWORD = 12;

function ChangePasswordForm({ email, onDone }: { email: string; onDone: () => void }) {
  const change = useChangePassword();
  const toast = useToast();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) {
      setProblem(`Use at least ${MIN_PASSWORD} characters.`);
      return;
    }
    setProblem(null);
    change.mutate(
      { currentPassword: current, password },
      {
        onSuccess: () => {
          toast.success('Password changed; your other sessions are signed out');
          onDone();
        },
      },
    );
  };
  return (
    <form className="form" onSubmit={submit}>
      {/* For password managers: whose password this is. */}
      <input type="email" autoComplete="username" value={email} readOnly hidden />
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        autoFocus
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD} characters. Your other sessions end.`}
        error={problem}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <FormError error={change.error} />
      <div className="dialog__actions">
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" busy={change.isPending}>
          Change password
        </Button>
      </div>
    </form>
  );
}
