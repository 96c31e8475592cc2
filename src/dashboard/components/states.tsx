import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.ts';
import { Button } from './button.tsx';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="state state--loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}…</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state--empty">
      <p className="state__title">{title}</p>
      {children}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  const requestId = error instanceof ApiError ? error.requestId : null;
  return (
    <div className="state state--error" role="alert">
      <p className="state__title">{titleFor(error)}</p>
      <p>{message}</p>
      {requestId && <p className="muted">Request id: {requestId}</p>}
      {onRetry && <Button onClick={onRetry}>Try again</Button>}
    </div>
  );
}

function titleFor(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong';
  if (error.status === 403) return 'Not allowed';
  if (error.status === 404) return 'Not found';
  if (error.status === 0) return 'No connection';
  return 'Could not load this';
}

/** Loading, error, then the data: the three states every view of server data has. */
export function QueryView<T>({
  query,
  label,
  children,
}: {
  query: UseQueryResult<T>;
  label?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading {...(label ? { label } : {})} />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => query.refetch()} />;
  return <>{children(query.data)}</>;
}
