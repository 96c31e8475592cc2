import type { BranchReview } from '../../domain/review/branch-review.ts';

// The local review page's HTML: plain server-rendered pages, inline styles, no scripts.

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1.5rem;color:#1f2328}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.1rem;margin-top:1.8rem}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.muted{color:#59636e}.box{border:1px solid #d1d9e0;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}
.ok{background:#dafbe1;border-color:#4ac26b}.err{background:#ffebe9;border-color:#ff8182}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #eef1f4}
pre.diff{border:1px solid #d1d9e0;border-radius:6px;overflow:auto;padding:0;margin:0}
pre.diff span{display:block;padding:0 .8rem;white-space:pre}
.add{background:#dafbe1}.del{background:#ffebe9}.hunk{background:#ddf4ff;color:#59636e}.meta{font-weight:600;background:#f6f8fa}
button{font:inherit;padding:.4rem 1rem;border-radius:6px;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
input{font:inherit;padding:.35rem .5rem;width:24rem;max-width:100%}
button.secondary{background:#f6f8fa;color:#1f2328;border-color:#d1d9e0}.signout{float:right}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)} · Docwright</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function signInPage(jobId: string, problem: string | null): string {
  const action = `/review/${encodeURIComponent(jobId)}/sign-in`;
  return layout(
    'Sign in',
    `<h1>Review ${escapeHtml(jobId)}</h1>
<p class="muted">Enter an admin API key of this job's project to see and merge its changes.</p>
${problem ? `<div class="box err">${escapeHtml(problem)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}"><label>API key <input type="password" name="key" autocomplete="off" required></label> <button type="submit">Sign in</button></form>`,
  );
}

export function messagePage(title: string, message: string, tone: 'err' | 'ok' = 'err'): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><div class="box ${tone}">${escapeHtml(message)}</div>`);
}

export interface ReviewPageState {
  notice?: string | null;
  problem?: string | null;
  /** Signed in with a browser session, which the page offers to end. */
  signedIn?: boolean;
}

export function reviewPage(jobId: string, review: BranchReview, state: ReviewPageState = {}): string {
  const { notice = null, problem = null, signedIn = false } = state;
  const signOut = signedIn
    ? `<form method="post" action="/review/sign-out" class="signout"><button type="submit" class="secondary">Sign out</button></form>`
    : '';
  const heading = `${signOut}<h1>Review <code>${escapeHtml(review.branch)}</code> → <code>${escapeHtml(review.baseBranch)}</code></h1>
<p class="muted">Job ${escapeHtml(jobId)}</p>`;
  const banners = [
    notice ? `<div class="box ok">${escapeHtml(notice)}</div>` : '',
    problem ? `<div class="box err">${escapeHtml(problem)}</div>` : '',
  ].join('');
  if (review.state === 'missing') {
    return layout(
      'Review',
      `${heading}${banners}<div class="box">This job has not pushed any changes yet.</div>`,
    );
  }
  if (review.state === 'merged') {
    return layout(
      'Review',
      `${heading}${banners}<div class="box ok">Everything on this branch is in ${escapeHtml(review.baseBranch)}.</div>`,
    );
  }
  const commits = review.commits
    .map(
      (c) =>
        `<tr><td><code>${escapeHtml(c.sha.slice(0, 10))}</code></td><td>${escapeHtml(c.subject)}</td><td class="muted">${escapeHtml(c.author)}</td><td class="muted">${escapeHtml(c.date)}</td></tr>`,
    )
    .join('');
  const files = review.files
    .map((f) => {
      const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
      const counts = f.additions === null ? 'binary' : `+${f.additions} −${f.deletions ?? 0}`;
      return `<tr><td><code>${escapeHtml(name)}</code></td><td>${escapeHtml(f.status)}</td><td class="muted">${escapeHtml(counts)}</td></tr>`;
    })
    .join('');
  const merge = `<form method="post" action="/review/${escapeHtml(encodeURIComponent(jobId))}/merge"><button type="submit">Merge into ${escapeHtml(review.baseBranch)}</button></form>`;
  return layout(
    `Review ${review.branch}`,
    `${heading}${banners}${merge}
<h2>Commits (${review.commits.length})</h2><table>${commits}</table>
<h2>Files changed (${review.files.length})</h2><table>${files}</table>
<h2>Diff</h2>${review.diffTruncated ? '<p class="muted">The diff is long; only its beginning is shown.</p>' : ''}
<pre class="diff">${renderDiff(review.diff)}</pre>`,
  );
}

function renderDiff(diff: string): string {
  return diff
    .split('\n')
    .map((line) => {
      const kind = line.startsWith('diff --git')
        ? 'meta'
        : line.startsWith('@@')
          ? 'hunk'
          : line.startsWith('+') && !line.startsWith('+++')
            ? 'add'
            : line.startsWith('-') && !line.startsWith('---')
              ? 'del'
              : '';
      return `<span${kind ? ` class="${kind}"` : ''}>${escapeHtml(line) || ' '}</span>`;
    })
    .join('');
}
