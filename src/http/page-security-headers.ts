/**
 * The headers of every page this server serves to a browser (the dashboard, the API reference):
 * scripts, styles and everything else from this origin only, never framed, no <base> tricks.
 * A page that needs more names it: `img` and `connect` sources beyond 'self', and inline event
 * handler attributes refused outright with `scriptAttrNone`.
 */
export function pageSecurityHeaders(
  extra: { img?: readonly string[]; connect?: readonly string[]; scriptAttrNone?: boolean } = {},
): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self'",
      ...(extra.scriptAttrNone ? ["script-src-attr 'none'"] : []),
      "style-src 'self'",
      ["img-src 'self'", ...(extra.img ?? [])].join(' '),
      ["connect-src 'self'", ...(extra.connect ?? [])].join(' '),
      "object-src 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}
