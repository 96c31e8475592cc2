import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import {
  deleteSessionsEndedBefore,
  findLiveSession,
  insertSession,
  revokeSessionByHash,
  touchSession,
} from '../../storage/queries/sessions.ts';
import { isKeyScope, type KeyPrincipal } from '../access/principal.ts';
import { type Clock, iso } from '../clock.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';

/** Who a browser session acts for: the key it was opened with, and the session itself. */
export interface SessionPrincipal extends KeyPrincipal {
  sessionId: string;
}

export interface SessionServiceOptions {
  /** How long a session lives after sign-in, whatever its use. */
  ttlSeconds: number;
}

const TOKEN_PREFIX = 'dws_';
const TOKEN_PATTERN = /^dws_[A-Za-z0-9_-]{43}$/;
// Writing last_seen_at on every page view would turn each read into a write.
const TOUCH_INTERVAL_MS = 60_000;
// Ended sessions stay in the table this long (for the record), then go.
const KEEP_ENDED_MS = 30 * 24 * 3600 * 1000;

/**
 * Browser sessions: the cookie holds a random 256-bit token, never a key; the database holds
 * only its SHA-256. A session expires, can be revoked (sign out), and ends when the API key it
 * was opened with is revoked.
 */
export class SessionService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly options: SessionServiceOptions;
  constructor(storage: Storage, clock: Clock, options: SessionServiceOptions) {
    this.storage = storage;
    this.clock = clock;
    this.options = options;
  }

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  /** Opens a session for a principal that has just proved itself; the token is shown once. */
  async open(principal: KeyPrincipal): Promise<{ token: string; expiresAt: string }> {
    const now = this.clock();
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = iso(new Date(now.getTime() + this.options.ttlSeconds * 1000));
    await this.storage.db.transaction().execute(async (tx) => {
      await deleteSessionsEndedBefore(tx, iso(new Date(now.getTime() - KEEP_ENDED_MS)));
      await insertSession(tx, {
        id: newId('ses'),
        token_hash: hashToken(token),
        project_id: principal.projectId,
        api_key_id: principal.keyId,
        user_id: null,
        created_at: iso(now),
        last_seen_at: iso(now),
        expires_at: expiresAt,
        revoked_at: null,
      });
    });
    return { token, expiresAt };
  }

  /** The live session behind a token, or `unauthenticated`. */
  async authenticate(token: string): Promise<SessionPrincipal> {
    if (!TOKEN_PATTERN.test(token)) throw new DomainError('unauthenticated', 'Not signed in');
    const now = this.clock();
    const row = await findLiveSession(this.storage.db, hashToken(token), iso(now));
    if (!row?.project_id || !row.api_key_id || !row.key_scope || !isKeyScope(row.key_scope)) {
      throw new DomainError('unauthenticated', 'The session has ended; sign in again');
    }
    if (now.getTime() - Date.parse(row.last_seen_at) >= TOUCH_INTERVAL_MS) {
      await touchSession(this.storage.db, row.id, iso(now));
    }
    return {
      kind: 'key',
      sessionId: row.id,
      projectId: row.project_id,
      keyId: row.api_key_id,
      scope: row.key_scope,
    };
  }

  /** Signs out: the token stops working at once. Unknown or ended tokens change nothing. */
  async revoke(token: string): Promise<void> {
    if (!TOKEN_PATTERN.test(token)) return;
    await revokeSessionByHash(this.storage.db, hashToken(token), iso(this.clock()));
  }
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
