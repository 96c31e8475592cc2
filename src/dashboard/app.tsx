import { QueryClient, QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError, setUnauthorizedHandler } from './api/client.ts';
import { sessionKey, useSession } from './api/session.ts';
import { CurrentUserContext } from './components/current-user.tsx';
import { Layout } from './components/layout.tsx';
import { ErrorState, Loading } from './components/states.tsx';
import { ToastProvider } from './components/toasts.tsx';
import { HomeRedirect } from './pages/home.tsx';
import { SignInPage } from './pages/sign-in.tsx';

// Pages load when first visited, so the first page load carries only the shell and sign-in.
const SignInLinkPage = lazy(() => import('./pages/sign-in-link.tsx'));
const ProjectsPage = lazy(() => import('./pages/projects.tsx'));
const KeysPage = lazy(() => import('./pages/keys.tsx'));
const WebhooksPage = lazy(() => import('./pages/webhooks.tsx'));
const AutomationsPage = lazy(() => import('./pages/automations/automations-page.tsx'));
const SettingsPage = lazy(() => import('./pages/settings.tsx'));
const UsersPage = lazy(() => import('./pages/users.tsx'));
const JobsPage = lazy(() => import('./pages/jobs/jobs-page.tsx'));
const JobPage = lazy(() => import('./pages/jobs/job-page.tsx'));
const JobRedirect = lazy(() => import('./pages/job-redirect.tsx'));
const AnalyticsPage = lazy(() => import('./pages/analytics/analytics-page.tsx'));
const NotFoundPage = lazy(() => import('./pages/not-found.tsx'));

function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        // A refusal (4xx) will not change by asking again; a lost connection may.
        retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400),
      },
    },
  });
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/sign-in" component={SignInPage} />
            <Route path="/sign-in/link" component={SignInLinkPage} />
            <Route>
              <SignedIn>
                <Layout>
                  <Suspense fallback={<Loading />}>
                    <SignedInRoutes />
                  </Suspense>
                </Layout>
              </SignedIn>
            </Route>
          </Switch>
        </Suspense>
      </ToastProvider>
    </QueryClientProvider>
  );
}

function SignedInRoutes() {
  return (
    <Switch>
      <Route path="/" component={HomeRedirect} />
      <Route path="/projects" component={ProjectsPage} />
      <Route path="/users" component={UsersPage} />
      <Route path="/jobs/:jobId" component={JobRedirect} />
      <Route path="/projects/:projectId">
        {(params) => <Redirect to={`/projects/${encodeURIComponent(params.projectId)}/jobs`} replace />}
      </Route>
      <Route path="/projects/:projectId/jobs" component={JobsPage} />
      <Route path="/projects/:projectId/jobs/:jobId" component={JobPage} />
      <Route path="/projects/:projectId/analytics" component={AnalyticsPage} />
      <Route path="/projects/:projectId/keys" component={KeysPage} />
      <Route path="/projects/:projectId/automations" component={AutomationsPage} />
      <Route path="/projects/:projectId/webhooks" component={WebhooksPage} />
      <Route path="/projects/:projectId/settings" component={SettingsPage} />
      <Route component={NotFoundPage} />
    </Switch>
  );
}

/** Renders its children for a signed-in account; anyone else goes to sign-in, and comes back after. */
function SignedIn({ children }: { children: ReactNode }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const [location, navigate] = useLocation();

  // A request refused for want of a session (expired, signed out elsewhere) leads to sign-in.
  useEffect(() => {
    setUnauthorizedHandler(() => queryClient.setQueryData(sessionKey, null));
    return () => setUnauthorizedHandler(null);
  }, [queryClient]);

  const signedOut = session.isSuccess && session.data === null;
  useEffect(() => {
    if (!signedOut) return;
    const here = `${location}${window.location.search}`;
    navigate(here === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
  }, [signedOut, location, navigate]);

  if (session.isPending) return <Loading label="Opening the dashboard" />;
  if (session.isError)
    return (
      <main className="main main--centered">
        <ErrorState error={session.error} onRetry={() => session.refetch()} />
      </main>
    );
  if (!session.data) return <Loading label="Signing in" />;
  return <CurrentUserContext.Provider value={session.data.user}>{children}</CurrentUserContext.Provider>;
}
