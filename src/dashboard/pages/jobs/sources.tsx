import type { BranchReviewPayload } from '../../api/types.ts';

type Source = BranchReviewPayload['sources'][number];

/**
 * What the job's change relied on beyond the docs repository, as Docwright saw the agent read
 * it: connected-repository files at the commit read (linked on their code host when there is
 * one) and web pages fetched. A reviewer checks the change's facts against them.
 */
export function JobSources({ sources }: { sources: Source[] }) {
  if (sources.length === 0) return null;
  return (
    <section className="sources" aria-labelledby="job-sources">
      <h3 id="job-sources" className="sources__title">
        Sources
      </h3>
      <p className="muted">What the agent read to make this change; check its facts against them.</p>
      <ul className="sources__list">
        {sources.map((source) =>
          source.kind === 'url' ? (
            <li key={source.url}>
              <SafeLink href={source.url}>{source.url}</SafeLink>
            </li>
          ) : (
            <li key={`${source.repository}:${source.path}`}>
              {source.url ? (
                <SafeLink href={source.url}>
                  <code>
                    {source.repository}:{source.path}
                  </code>
                </SafeLink>
              ) : (
                <code>
                  {source.repository}:{source.path}
                </code>
              )}{' '}
              <span className="muted">
                at <code>{source.commit.slice(0, 12)}</code>
              </span>
            </li>
          ),
        )}
      </ul>
    </section>
  );
}

/** An outside link, only for http(s) (anything else is shown as text). */
function SafeLink({ href, children }: { href: string; children: React.ReactNode }) {
  if (!/^https?:\/\//i.test(href)) return <>{children}</>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}
