import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import { revokeUserSessions } from '../../storage/queries/sessions.ts';
import {
  deleteSignInLinksEndedBefore,
  insertSignInLink,
  useSignInLink,
} from '../../storage/queries/sign-in-links.ts';
import { findUser, findUserByEmail, updateUser } from '../../storage/queries/users.ts';
import type { UserUpdate } from '../../storage/schema.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, DomainError, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkPassword, normaliseEmail } from './account-fields.ts';
import { hashPassword } from './password-hash.ts';
import { toUserInfo, type UserInfo } from './user-service.ts';

const TOKEN_PATTERN = /^dwl_[A-Za-z0-9_-]{43}$/;
const LINK_TTL_MS = 24 * 3600 * 1000;
// Used and expired links stay this long (for the record), then go.
const KEEP_ENDED_MS = 30 * 24 * 3600 * 1000;

/** The page that redeems a link; the token is in the fragment, so no server log or Referer sees it. */
export function signInLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/sign-in/link#token=${token}`;
}

export interface NewSignInLink {
  /** `dwl_` + 32 random bytes (base64url): shown once, stored only as its SHA-256. */
  token: string;
  expiresAt: string;
  user: UserInfo;
}

export interface Redemption {
  /** For an account without a password yet: the email it is to have. Else, if given, it must be the account's. */
  email?: string | undefined;
  /** Required for an account without a password yet; else, if given, replaces the password. */
  password?: string | undefined;
}

/**
 * One-time sign-in links: they set up a new account (its email and first password) or let a
 * person who lost their password in again. Valid 24 hours, once.
 */
export class SignInLinks {
  private readonly storage: Storage;
  private readonly clock: Clock;
  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
  }

  async create(userId: string): Promise<NewSignInLink> {
    const now = this.clock();
    const token = `dwl_${randomBytes(32).toString('base64url')}`;
    const expiresAt = iso(new Date(now.getTime() + LINK_TTL_MS));
    const user = await this.storage.db.transaction().execute(async (tx) => {
      const row = await findUser(tx, userId);
      if (!row) throw notFound(`Account ${userId} not found`);
      await deleteSignInLinksEndedBefore(tx, iso(new Date(now.getTime() - KEEP_ENDED_MS)));
      await insertSignInLink(tx, {
        id: newId('sil'),
        user_id: userId,
        token_hash: hashToken(token),
        created_at: iso(now),
        expires_at: expiresAt,
        used_at: null,
      });
      return toUserInfo(row);
    });
    return { token, expiresAt, user };
  }

  /** Uses the link (once) and applies the email and password it came with; returns the account. */
  async redeem(token: string, redemption: Redemption): Promise<UserInfo> {
    const email = redemption.email === undefined ? undefined : normaliseEmail(redemption.email);
    const passwordHash =
      redemption.password === undefined ? undefined : await hashPassword(checkPassword(redemption.password));
    if (!TOKEN_PATTERN.test(token)) throw unusable();
    const now = iso(this.clock());
    // One transaction: a redemption refused below leaves the link unused.
    return this.storage.db.transaction().execute(async (tx) => {
      const link = await useSignInLink(tx, hashToken(token), now);
      if (!link) throw unusable();
      const user = await findUser(tx, link.user_id);
      if (!user) throw unusable();
      const changes: UserUpdate = { updated_at: now };
      if (user.password_hash === null) {
        if (email === undefined || passwordHash === undefined) {
          throw invalid('This account is new: give the email and the password it is to have');
        }
        if (email !== user.email) {
          const taken = await findUserByEmail(tx, email);
          if (taken) throw conflict(`An account with email ${email} already exists`);
          changes.email = email;
        }
      } else if (email !== undefined && email !== user.email) {
        throw invalid('This sign-in link is for another email address');
      }
      if (passwordHash !== undefined) {
        changes.password_hash = passwordHash;
        // A new password ends the sessions opened with the old one, as a reset does.
        await revokeUserSessions(tx, user.id, now);
      }
      const updated = await updateUser(tx, user.id, changes);
      if (!updated) throw unusable();
      return toUserInfo(updated);
    });
  }

  /** A link for the account with this email (the CLI's `users sign-in-link --email`). */
  async createForEmail(email: string): Promise<NewSignInLink> {
    const row = await findUserByEmail(this.storage.db, email.trim().toLowerCase());
    if (!row) throw notFound(`No account with email ${email.trim()}`);
    return this.create(row.id);
  }
}

function unusable(): DomainError {
  return new DomainError(
    'unauthenticated',
    'This sign-in link is not valid: it was used already, has expired (links last 24 hours), or was copied incompletely. Ask an owner for a new one.',
  );
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
