/**
 * The browser tracker served at `GET /script.js`. Include it on every docs page:
 *
 *   <script defer src="https://docwright.example.com/script.js" data-project="prj_…"></script>
 *
 * It sets no cookie and stores nothing in the browser: the server derives the visitor from
 * (IP, user agent) under a rotating salt. It reports the first page and every client-side
 * navigation (history.pushState / replaceState / popstate), once per distinct path, with
 * navigator.sendBeacon (a text/plain POST: no CORS preflight) or fetch keepalive.
 * `data-api` overrides the Docwright base URL when the script is served from elsewhere.
 */
const SOURCE = `(function () {
  var script = document.currentScript;
  if (!script) return;
  var project = script.getAttribute('data-project');
  if (!project) return;
  var base = (script.getAttribute('data-api') || new URL(script.src).origin).replace(/\\/+$/, '');
  var url = base + '/v1/analytics/' + encodeURIComponent(project) + '/collect';
  var last = null;
  var referrer = document.referrer;
  function send() {
    var path = location.pathname;
    if (path === last) return;
    last = path;
    var body = JSON.stringify(referrer ? { p: path, r: referrer } : { p: path });
    referrer = '';
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(url, body)) return;
    } catch (e) {}
    if (window.fetch) {
      fetch(url, { method: 'POST', body: body, keepalive: true, credentials: 'omit', mode: 'no-cors',
        headers: { 'content-type': 'text/plain' } }).catch(function () {});
    }
  }
  function wrap(name) {
    var original = history[name];
    history[name] = function () {
      var result = original.apply(this, arguments);
      send();
      return result;
    };
  }
  wrap('pushState');
  wrap('replaceState');
  window.addEventListener('popstate', send);
  if (document.visibilityState === 'prerender') {
    document.addEventListener('visibilitychange', function onVisible() {
      if (document.visibilityState === 'prerender') return;
      document.removeEventListener('visibilitychange', onVisible);
      send();
    });
  } else {
    send();
  }
})();
`;

/** Whitespace squeezed: the script stays readable in the repository and small on the wire. */
export const TRACKER_SCRIPT = SOURCE.replace(/\n\s*/g, '\n').trim();
