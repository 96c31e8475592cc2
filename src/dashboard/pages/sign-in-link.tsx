import { type FormEvent, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useRedeemLink } from '../api/session.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { Button } from '../components/button.tsx';
import { FormError, TextField } from '../components/field.tsx';

// The server's rule (src/domain/users/account-fields.ts), checked here only to say so sooner.
const MIN_PASSWORD = 12;

/** Reads the link's token from the fragment once, then takes it out of the address bar and history. */
function useFragmentToken(): string | null {
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token'));
  useEffect(() => {
    if (window.location.hash) history.replaceState(history.state, '', window.location.pathname);
  }, []);
  return token;
}

/**
 * `/sign-in/link#token=…`: a one-time link (printed at first start or made by an owner). The
 * person sets the account's email and a password, and is signed in.
 */
export default function SignInLinkPage() {
  const token = useFragmentToken();
  const redeem = useRedeemLink();
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Set your password · Docwright';
  }, []);

  if (!token) {
    return (
      <AuthCard title="This link is incomplete">
        <p>
          A sign-in link ends with <code>#token=…</code>. Copy the whole link, or ask an owner for a new one.
        </p>
        <p>
          <Link href="/sign-in">Sign in with a password</Link>
        </p>
      </AuthCard>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) {
      setProblem(`Use at least ${MIN_PASSWORD} characters.`);
      return;
    }
    if (password !== repeat) {
      setProblem('The two passwords differ.');
      return;
    }
    setProblem(null);
    redeem.mutate(
      { token, email: email.trim(), password },
      { onSuccess: () => navigate('/', { replace: true }) },
    );
  };
  return (
    <AuthCard title="Set your email and password">
      <p>This one-time link signs you in. Choose the email and password you will sign in with from now on.</p>
      <form className="form" onSubmit={submit}>
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          required
          autoFocus
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <TextField
          label="New password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          hint={`At least ${MIN_PASSWORD} characters.`}
          error={problem}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <TextField
          label="Repeat the password"
          type="password"
          name="repeat-password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(event) => setRepeat(event.target.value)}
        />
        <FormError error={redeem.error} />
        <Button type="submit" variant="primary" busy={redeem.isPending} className="button--block">
          Save and sign in
        </Button>
      </form>
    </AuthCard>
  );
}
