import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import {
  deleteSessionsEndedBefore,
  findLiveUserSession,
  insertSession,
  revokeSessionByHash,
  revokeUserSessions,
  touchSession,
} from '../../storage/queries/sessions.ts';
import { findUser, updateUser } from '../../storage/queries/users.ts';
import { isRole, type Role, type UserPrincipal } from '../access/principal.ts';
import { type Clock, iso } from '../clock.ts';
import { DomainError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';

export interface SessionServiceOptions {
  /** How long a session lives after sign-in, however much it is used (default 7 days). */
  absoluteSeconds?: number;
  /** How long a session lives unused (default 24 hours). */
  idleSeconds?: number;
}

/** A signed-in session as the dashboard sees it. */
export interface AccountSession {
  principal: UserPrincipal;
  user: { id: string; email: string; role: Role; createdAt: string };
  /** Send it as `X-CSRF-Token` with every state-changing request. */
  csrfToken: string;
  /** When the session ends at the latest (it ends sooner after `idleSeconds` unused). */
  expiresAt: string;
}

const DEFAULT_ABSOLUTE_SECONDS = 7 * 24 * 3600;
const DEFAULT_IDLE_SECONDS = 24 * 3600;
const TOKEN_PREFIX = 'dws_';
const TOKEN_PATTERN = /^dws_[A-Za-z0-9_-]{43}$/;
// Writing last_seen_at on every request would turn each read into a write.
const TOUCH_INTERVAL_MS = 60_000;
// Ended sessions stay in the table this long (for the record), then go.
const KEEP_ENDED_MS = 30 * 24 * 3600 * 1000;
const CSRF_LABEL = 'docwright csrf v1';

/**
 * Sessions of dashboard accounts. The cookie holds a random 256-bit token; the database holds
 * only its SHA-256. A session ends 7 days after sign-in, after 24 hours unused, on sign-out,
 * and when its account signs out everywhere, gets a new password or is deleted.
 */
export class SessionService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  readonly absoluteSeconds: number;
  readonly idleSeconds: number;
  constructor(storage: Storage, clock: Clock, options: SessionServiceOptions = {}) {
    this.storage = storage;
    this.clock = clock;
    this.absoluteSeconds = options.absoluteSeconds ?? DEFAULT_ABSOLUTE_SECONDS;
    this.idleSeconds = options.idleSeconds ?? DEFAULT_IDLE_SECONDS;
  }

  /** Opens a session for an account that has just proved itself; the token is shown once. */
  async open(userId: string): Promise<{ token: string; session: AccountSession }> {
    const now = this.clock();
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = iso(new Date(now.getTime() + this.absoluteSeconds * 1000));
    const id = newId('ses');
    const user = await this.storage.db.transaction().execute(async (tx) => {
      const user = await updateUser(tx, userId, { last_sign_in_at: iso(now) });
      if (!user) throw notFound(`Account ${userId} not found`);
      await deleteSessionsEndedBefore(tx, iso(new Date(now.getTime() - KEEP_ENDED_MS)));
      await insertSession(tx, {
        id,
        token_hash: hashToken(token),
        project_id: null,
        api_key_id: null,
        user_id: userId,
        created_at: iso(now),
        last_seen_at: iso(now),
        expires_at: expiresAt,
        revoked_at: null,
      });
      return user;
    });
    return {
      token,
      session: this.view(token, id, expiresAt, {
        id: user.id,
        email: user.email,
        role: user.role,
        createdAt: user.created_at,
      }),
    };
  }

  /** The live session behind a token, or `unauthenticated`. */
  async authenticate(token: string): Promise<AccountSession> {
    if (!TOKEN_PATTERN.test(token)) throw ended();
    const now = this.clock();
    const row = await findLiveUserSession(this.storage.db, hashToken(token), iso(now));
    if (!row) throw ended();
    const idleMs = now.getTime() - Date.parse(row.last_seen_at);
    if (idleMs >= this.idleSeconds * 1000) throw ended();
    if (idleMs >= TOUCH_INTERVAL_MS) await touchSession(this.storage.db, row.id, iso(now));
    return this.view(token, row.id, row.expires_at, {
      id: row.user_id,
      email: row.email,
      role: row.role,
      createdAt: row.user_created_at,
    });
  }

  /** Whether `header` is the CSRF token of the session `token`; constant-time. */
  csrfMatches(token: string, header: string | undefined): boolean {
    if (header === undefined) return false;
    const expected = Buffer.from(csrfToken(token));
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Signs out: the token stops working at once. Unknown or ended tokens change nothing. */
  async revoke(token: string): Promise<void> {
    if (!TOKEN_PATTERN.test(token)) return;
    await revokeSessionByHash(this.storage.db, hashToken(token), iso(this.clock()));
  }

  /** Signs the account out everywhere; returns how many sessions ended. */
  async revokeAll(userId: string): Promise<number> {
    if (!(await findUser(this.storage.db, userId))) throw notFound(`Account ${userId} not found`);
    return revokeUserSessions(this.storage.db, userId, iso(this.clock()));
  }

  private view(
    token: string,
    sessionId: string,
    expiresAt: string,
    user: { id: string; email: string; role: string; createdAt: string },
  ): AccountSession {
    if (!isRole(user.role)) throw ended();
    const role = user.role;
    return {
      principal: { kind: 'user', userId: user.id, sessionId, email: user.email, role },
      user: { id: user.id, email: user.email, role, createdAt: user.createdAt },
      csrfToken: csrfToken(token),
      expiresAt,
    };
  }
}

/**
 * Derived from the session token, so nothing more is stored: a page of another site can read
 * neither the cookie nor this value, and it changes with every sign-in.
 */
function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update(CSRF_LABEL).digest('base64url');
}

function ended(): DomainError {
  return new DomainError('unauthenticated', 'Not signed in, or the session has ended: sign in again');
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
