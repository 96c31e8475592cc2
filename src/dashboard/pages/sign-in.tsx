import { type FormEvent, useEffect, useState } from 'react';
import { Redirect, useSearch } from 'wouter';
import { useSession, useSignIn } from '../api/session.ts';
import { AuthCard } from '../components/auth-card.tsx';
import { Button } from '../components/button.tsx';
import { FormError, TextField } from '../components/field.tsx';
import { Loading } from '../components/states.tsx';

/** Where to go after signing in: a path of this site only (never `//elsewhere`). */
export function safeNext(search: string): string {
  const next = new URLSearchParams(search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** Email and password in plain form fields, so password managers recognise and fill them. */
export function SignInPage() {
  const session = useSession();
  const signIn = useSignIn();
  const next = safeNext(useSearch());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  useEffect(() => {
    document.title = 'Sign in · Docwright';
  }, []);

  if (session.data) return <Redirect to={next} replace />;
  if (session.isPending) return <Loading />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email: email.trim(), password });
  };
  return (
    <AuthCard title="Sign in to Docwright">
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
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <FormError error={signIn.error} />
        <Button type="submit" variant="primary" busy={signIn.isPending} className="button--block">
          Sign in
        </Button>
      </form>
      <p className="auth-card__note">
        No account yet? The server's first start prints a one-time sign-in link. An owner can make one for
        you, or run{' '}
        <code className="block-code">npx docwright users sign-in-link --email you@example.com</code>
      </p>
    </AuthCard>
  );
}
