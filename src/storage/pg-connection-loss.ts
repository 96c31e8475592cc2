import type pg from 'pg';

/**
 * A lost PostgreSQL connection (a server restart, a failover, a proxy's idle cut) must not end
 * the process. pg emits it as an `error` event: the pool's for an idle client, the client's own
 * for one checked out between two queries, where nothing listens unless told to, and Node ends
 * the process on an unhandled `error`. With these listeners the client's next query fails
 * instead, its caller answers as for any failed query, and the pool replaces the connection.
 */
export function surviveConnectionLoss(pool: pg.Pool): pg.Pool {
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}
