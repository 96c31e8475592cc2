/**
 * How to get traffic in, with this project's own values filled in: the browser tracker, the
 * ingestion API and the access-log import (docs/analytics.md says more about each).
 */
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { SettingsPayload } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { projectPath } from '../../components/current-project.ts';

export function InstallGuide({ projectId, settings }: { projectId: string; settings: SettingsPayload }) {
  const base = settings.server.publicUrl.replace(/\/+$/, '');
  const origins = settings.analytics.allowedOrigins;
  const tracker = `<script defer src="${base}/script.js" data-project="${projectId}"></script>`;
  // The timestamp is the shell's now, so the example's view lands in today (and "Last 30 days").
  const ingest = [
    `curl -X POST "${base}/v1/analytics/${projectId}/events" \\`,
    `  -H "Authorization: Bearer $DOCWRIGHT_INGEST_KEY" -H 'Content-Type: application/json' \\`,
    `  -d '{"events":[{"timestamp":"'"$(date -u +%Y-%m-%dT%H:%M:%SZ)"'","path":"/quickstart",`,
    `               "userAgent":"Mozilla/5.0 …","ip":"203.0.113.7","id":"req-1"}]}'`,
  ].join('\n');
  const importLog = `npx docwright analytics import --project ${projectId} /var/log/nginx/access.log`;
  return (
    <div className="install">
      <div className="install__step">
        <h3 className="install__title">Browser tracker</h3>
        <p>
          Add this tag to every page of the docs site. It sets no cookie and sends each page once. It only
          counts views from an allowed origin:{' '}
          {origins.length > 0 ? (
            <>
              now {origins.map((origin) => <code key={origin}>{origin}</code>).reduce(joinWithComma)} (change
              them in <Link href={projectPath(projectId, 'settings')}>Settings</Link>).
            </>
          ) : (
            <>
              none yet: add the site's origin, such as <code>https://docs.example.com</code>, in{' '}
              <Link href={projectPath(projectId, 'settings')}>Settings</Link>.
            </>
          )}
        </p>
        <Snippet value={tracker} what="tracker tag" />
      </div>
      <div className="install__step">
        <h3 className="install__title">Ingestion API</h3>
        <p>
          A docs server or proxy sends its page views, AI agents included (they never run the tracker). Use an
          ingestion key from <Link href={projectPath(projectId, 'keys')}>API keys</Link>; up to 1,000 events a
          request. Each event has its own time: the example sends now (<code>date -u</code>), so it shows in
          today's numbers.
        </p>
        <Snippet value={ingest} what="ingestion example" />
      </div>
      <div className="install__step">
        <h3 className="install__title">Access-log import</h3>
        <p>
          Imports nginx or Apache logs and CDN exports (<code>--format json</code> for JSON lines), on the
          machine where Docwright keeps its data. Importing the same file twice counts nothing twice.
        </p>
        <Snippet value={importLog} what="import command" />
      </div>
    </div>
  );
}

function Snippet({ value, what }: { value: string; what: string }) {
  return (
    <div className="snippet">
      {/* A long line scrolls sideways: the keyboard must reach the box to scroll it. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: see above */}
      <section className="snippet__box" tabIndex={0} aria-label={what}>
        <pre className="snippet__code">
          <code>{value}</code>
        </pre>
      </section>
      <CopyButton value={value} what={what} small />
    </div>
  );
}

const joinWithComma = (all: ReactNode, next: ReactNode) => (
  <>
    {all}, {next}
  </>
);
