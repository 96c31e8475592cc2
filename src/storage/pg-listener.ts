import pg from 'pg';

export interface ListenHandlers {
  /** A notification on the channel arrived, with its payload. */
  notification(payload: string): void;
  /**
   * The connection is (again) listening. Notifications sent while it was down are lost, so
   * whoever listens should look for what it missed.
   */
  listening(): void;
  /** The connection failed; it reconnects by itself. */
  error?(error: Error): void;
}

export interface Listening {
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * A dedicated PostgreSQL connection that LISTENs on one channel (a pooled connection cannot:
 * LISTEN belongs to a session), reconnecting with backoff whenever the connection drops.
 */
export function listenPostgres(url: string, channel: string, handlers: ListenHandlers): Listening {
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | null = null;

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  const connect = async () => {
    const current = new pg.Client({ connectionString: url, keepAlive: true });
    client = current;
    current.on('notification', (message) => {
      if (message.channel === channel) handlers.notification(message.payload ?? '');
    });
    const lost = (error?: Error) => {
      if (client !== current) return;
      client = null;
      current.end().catch(() => {});
      if (error) handlers.error?.(error);
      retry();
    };
    current.on('error', lost);
    current.on('end', () => lost());
    try {
      await current.connect();
      await current.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    if (closed) {
      await current.end().catch(() => {});
      return;
    }
    retryMs = FIRST_RETRY_MS;
    handlers.listening();
  };

  void connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
