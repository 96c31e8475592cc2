/** A web page as text, the way fetch_url shows it to the model. */
export interface WebPage {
  /** The URL the page was read from: the one asked for, or where its redirects led. */
  url: string;
  /** The page's title (HTML `<title>`, else its first heading), when it has one. */
  title: string | null;
  /** The media type the server gave, without parameters, e.g. `text/html`. */
  contentType: string;
  /** The page as text: HTML turned into Markdown, other text types as served (JSON pretty-printed). */
  text: string;
}

/**
 * Reads a web page for the documentation agent's fetch_url tool (see integrations/web). An
 * implementation connects only where the outgoing-network policy allows, follows redirects
 * through the same check, bounds the time and the size, and reads text types only. Failures
 * the model can act on are thrown as {@link WebReadError}; a cancelled turn as the signal's
 * abort error.
 */
export interface WebReader {
  read(url: string, signal?: AbortSignal): Promise<WebPage>;
}

/** Why a page could not be read, phrased for the model (no host paths, no secrets). */
export class WebReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebReadError';
  }
}
