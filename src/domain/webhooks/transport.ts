/** One HTTP POST of a delivery. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/**
 * The port a delivery goes out through (src/integrations/webhooks implements it over HTTP).
 * Resolves with the response status, whatever it is; rejects with a message fit for the
 * delivery log when nothing was answered: refused address, DNS, connection, timeout.
 */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<{ status: number; location: string | null }>;
  close(): void;
}
