import type { Storage } from '../../storage/database.ts';
import { deleteUserSessions, revokeUserSessions } from '../../storage/queries/sessions.ts';
import {
  deleteUser,
  findUser,
  findUserByEmail,
  insertUser,
  listUsers,
  lockOwnerIds,
  updateUser,
} from '../../storage/queries/users.ts';
import type { UserRow, UserUpdate } from '../../storage/schema.ts';
import { isRole, type Role } from '../access/principal.ts';
import { type Clock, iso } from '../clock.ts';
import { conflict, DomainError, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkPassword, normaliseEmail } from './account-fields.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './password-hash.ts';

/** An account as it may be shown: never its password hash. */
export interface UserInfo {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string | null;
  /** False until a password is set (a new account waiting for its sign-in link). */
  hasPassword: boolean;
}

export interface NewUser {
  email: string;
  /** Absent or null: the account signs in first through a sign-in link, which sets one. */
  password?: string | null | undefined;
  role: Role;
}

export interface UserChange {
  role?: Role | undefined;
  password?: string | undefined;
}

/** The account the first start makes when there is none; its sign-in link sets the real email. */
export const FIRST_OWNER_EMAIL = 'owner@localhost';

/**
 * Dashboard accounts: create, list, change role, reset password, delete, and check a sign-in.
 * An installation always keeps at least one owner: the last one can be neither deleted nor
 * demoted. Changing a password ends the account's sessions; deleting it removes them.
 */
export class UserService {
  private readonly storage: Storage;
  private readonly clock: Clock;
  constructor(storage: Storage, clock: Clock) {
    this.storage = storage;
    this.clock = clock;
  }

  async create(input: NewUser): Promise<UserInfo> {
    const email = normaliseEmail(input.email);
    const role = checkRole(input.role);
    const passwordHash =
      input.password === undefined || input.password === null
        ? null
        : await hashPassword(checkPassword(input.password));
    const now = iso(this.clock());
    const row: UserRow = {
      id: newId('usr'),
      email,
      password_hash: passwordHash,
      role,
      created_at: now,
      updated_at: now,
      last_sign_in_at: null,
    };
    await this.storage.db.transaction().execute(async (tx) => {
      if (await findUserByEmail(tx, email)) throw conflict(`An account with email ${email} already exists`);
      await insertUser(tx, row);
    });
    return toUserInfo(row);
  }

  async list(): Promise<UserInfo[]> {
    return (await listUsers(this.storage.db)).map(toUserInfo);
  }

  async get(id: string): Promise<UserInfo> {
    const row = await findUser(this.storage.db, id);
    if (!row) throw notFound(`Account ${id} not found`);
    return toUserInfo(row);
  }

  /** By id (`usr_…`) or by email: what a person types on the command line. */
  async find(idOrEmail: string): Promise<UserInfo> {
    const value = idOrEmail.trim();
    const row = value.includes('@')
      ? await findUserByEmail(this.storage.db, value.toLowerCase())
      : await findUser(this.storage.db, value);
    if (!row) throw notFound(`Account ${value} not found`);
    return toUserInfo(row);
  }

  /**
   * Changes the role or the password. A new password ends every session of the account but
   * `keepSessionId` (the session of a person changing their own password stays open).
   */
  async update(id: string, change: UserChange, options: { keepSessionId?: string } = {}): Promise<UserInfo> {
    const role = change.role === undefined ? undefined : checkRole(change.role);
    const passwordHash =
      change.password === undefined ? undefined : await hashPassword(checkPassword(change.password));
    const now = iso(this.clock());
    return this.storage.db.transaction().execute(async (tx) => {
      const current = await findUser(tx, id);
      if (!current) throw notFound(`Account ${id} not found`);
      const changes: UserUpdate = { updated_at: now };
      if (role !== undefined && role !== current.role) {
        if (current.role === 'owner') await this.keepAnOwner(tx, id, 'demote');
        changes.role = role;
      }
      if (passwordHash !== undefined) {
        changes.password_hash = passwordHash;
        await revokeUserSessions(tx, id, now, options.keepSessionId ?? null);
      }
      const updated = await updateUser(tx, id, changes);
      if (!updated) throw notFound(`Account ${id} not found`);
      return toUserInfo(updated);
    });
  }

  /** Sets a new password and ends every session of the account. */
  resetPassword(id: string, password: string): Promise<UserInfo> {
    return this.update(id, { password });
  }

  /** Deletes the account, its sessions and its sign-in links. */
  async delete(id: string): Promise<UserInfo> {
    return this.storage.db.transaction().execute(async (tx) => {
      const current = await findUser(tx, id);
      if (!current) throw notFound(`Account ${id} not found`);
      if (current.role === 'owner') await this.keepAnOwner(tx, id, 'delete');
      await deleteUserSessions(tx, id);
      await deleteUser(tx, id);
      return toUserInfo(current);
    });
  }

  /**
   * The account for an email and password, or null: a wrong email and a wrong password look
   * the same, in the answer and in the time it takes.
   */
  async verifyCredentials(email: string, password: string): Promise<UserInfo | null> {
    const row =
      password.length > 0 && password.length <= 1024
        ? await findUserByEmail(this.storage.db, email.trim().toLowerCase())
        : undefined;
    if (!row?.password_hash) {
      await verifyAgainstDummy(password.slice(0, 1024));
      return null;
    }
    return (await verifyPassword(password, row.password_hash)) ? toUserInfo(row) : null;
  }

  /**
   * On a fresh installation nobody can sign in: make an owner account (without a password)
   * if there is no account at all, and return the owner to send a sign-in link to while no
   * account has a password yet. Null once someone can sign in.
   */
  async ownerToSetUp(): Promise<{ user: UserInfo; created: boolean } | null> {
    return this.storage.db.transaction().execute(async (tx) => {
      const rows = await listUsers(tx);
      if (rows.some((row) => row.password_hash !== null)) return null;
      const owner = rows.find((row) => row.role === 'owner');
      if (owner) return { user: toUserInfo(owner), created: false };
      if (rows.length > 0) return null; // accounts without an owner: an operator's doing; leave them
      const now = iso(this.clock());
      const row: UserRow = {
        id: newId('usr'),
        email: FIRST_OWNER_EMAIL,
        password_hash: null,
        role: 'owner',
        created_at: now,
        updated_at: now,
        last_sign_in_at: null,
      };
      await insertUser(tx, row);
      return { user: toUserInfo(row), created: true };
    });
  }

  private async keepAnOwner(tx: Storage['db'], id: string, action: 'delete' | 'demote'): Promise<void> {
    const owners = await lockOwnerIds(tx, this.storage.dialect);
    if (owners.filter((ownerId) => ownerId !== id).length === 0) {
      throw conflict(
        action === 'delete'
          ? 'This is the last owner account: make another account owner before deleting it'
          : 'This is the last owner account: make another account owner before changing its role',
      );
    }
  }
}

function checkRole(role: string): Role {
  if (!isRole(role)) throw invalid('role must be one of owner, admin, viewer');
  return role;
}

export function toUserInfo(row: UserRow): UserInfo {
  if (!isRole(row.role)) throw new DomainError('invalid', `Account ${row.id} has an unknown role`);
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
    hasPassword: row.password_hash !== null,
  };
}
