import { createHash } from 'node:crypto';
import type { Storage } from '../../storage/database.ts';
import type { Clock } from '../clock.ts';
import { DomainError, invalid } from '../errors.ts';
import { FailureLimiter } from '../rate-limit/failure-limiter.ts';
import type { Redemption, SignInLinks } from '../users/sign-in-links.ts';
import type { UserService } from '../users/user-service.ts';
import type { AccountSession, SessionService } from './session-service.ts';

export interface SignInLimits {
  /** Failed sign-ins per account per window (default 10). */
  perAccount?: number;
  /** Failed sign-ins per client address per window (default 50). */
  perAddress?: number;
  /** Default 15 minutes. */
  windowSeconds?: number;
}

export interface SignedIn {
  /** The session token for the cookie: shown once. */
  token: string;
  session: AccountSession;
}

/**
 * Signing in to the dashboard: with an email and a password, or with a one-time sign-in link.
 * Failed passwords are counted per account and per client address (in the database, so every
 * process shares them) and checked before the password is, so guessing stops at the limit.
 */
export class SignInService {
  private readonly users: UserService;
  private readonly links: SignInLinks;
  private readonly sessions: SessionService;
  private readonly perAccount: FailureLimiter;
  private readonly perAddress: FailureLimiter;
  constructor(options: {
    storage: Storage;
    clock: Clock;
    users: UserService;
    links: SignInLinks;
    sessions: SessionService;
    limits?: SignInLimits;
  }) {
    const { storage, clock, limits = {} } = options;
    this.users = options.users;
    this.links = options.links;
    this.sessions = options.sessions;
    const windowSeconds = limits.windowSeconds ?? 15 * 60;
    this.perAccount = new FailureLimiter(storage, clock, {
      prefix: 'sign-in:account:',
      limit: limits.perAccount ?? 10,
      windowSeconds,
      refusal: 'for this account',
    });
    this.perAddress = new FailureLimiter(storage, clock, {
      prefix: 'sign-in:address:',
      limit: limits.perAddress ?? 50,
      windowSeconds,
      refusal: 'from this address',
    });
  }

  async signIn(email: string, password: string, clientAddress: string): Promise<SignedIn> {
    const user = await this.checkPassword(email, password, clientAddress);
    if (!user) throw new DomainError('unauthenticated', 'Wrong email or password');
    return this.sessions.open(user.id);
  }

  /**
   * A signed-in account changes its own password: the current one is checked (and counted
   * like a sign-in, so a session left open cannot be used to guess it); the account's other
   * sessions end, this one stays.
   */
  async changeOwnPassword(
    session: AccountSession,
    change: { currentPassword: string; password: string },
    clientAddress: string,
  ): Promise<void> {
    const user = await this.checkPassword(session.user.email, change.currentPassword, clientAddress);
    if (user?.id !== session.user.id) throw invalid('currentPassword is not the password of this account');
    await this.users.update(
      user.id,
      { password: change.password },
      { keepSessionId: session.principal.sessionId },
    );
  }

  /** The account if the password is right; failures counted, and refused while over a limit. */
  private async checkPassword(email: string, password: string, clientAddress: string) {
    // Emails are counted by hash: addresses typed by whoever tries are not stored.
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    await this.perAddress.check(clientAddress);
    await this.perAccount.check(account);
    const user = await this.users.verifyCredentials(email, password);
    if (!user) await Promise.all([this.perAccount.fail(account), this.perAddress.fail(clientAddress)]);
    return user;
  }

  /** Uses a one-time link (setting up the account's email and password) and signs in. */
  async redeem(token: string, redemption: Redemption): Promise<SignedIn> {
    const user = await this.links.redeem(token, redemption);
    return this.sessions.open(user.id);
  }
}
