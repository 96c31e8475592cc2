import { Type } from 'typebox';

// How the dashboard's own routes appear in /openapi.json: one tag, the session cookie, and
// the CSRF header for the ones that change state.

export const DASHBOARD_TAG = 'Dashboard';

/** Routes that read: the session cookie. */
export const readDocs = { tags: [DASHBOARD_TAG], security: [{ cookieAuth: [] }] };
/** Routes that change state: the session cookie and `X-CSRF-Token`. */
export const changeDocs = { tags: [DASHBOARD_TAG], security: [{ cookieAuth: [], csrfToken: [] }] };
/** Signing in: no session yet. */
export const signInDocs = { tags: [DASHBOARD_TAG], security: [] };

const error = (description: string) => Type.Ref('Error', { description });

/** Error responses every dashboard route may give. */
export const dashboardErrors = {
  400: error('Invalid request: the body or a parameter is malformed; details name each problem.'),
  401: error(
    'Not signed in, the session has ended, or an API key was sent (keys do not open the dashboard).',
  ),
  403: error(
    "The account's role does not allow this, or a state-changing request came from another site or without its X-CSRF-Token.",
  ),
  404: error('Unknown project, account, job or route.'),
  500: error('Internal error; quote the requestId when reporting it.'),
  503: error('Storage is unavailable for a moment; Retry-After says when to try again.'),
};

export const dashboardBodyErrors = {
  ...dashboardErrors,
  409: error('Conflict with the current state (named in the error).'),
  413: error('Request body too large.'),
  415: error('Content-Type is not application/json.'),
};

export const NoContent = Type.Null({ description: 'Done; no content.' });
