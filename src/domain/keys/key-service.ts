import type { BlockList } from 'node:net';
import type { Storage } from '../../storage/database.ts';
import {
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  touchApiKey,
} from '../../storage/queries/api-keys.ts';
import { findProject } from '../../storage/queries/projects.ts';
import type { ApiKeyRow } from '../../storage/schema.ts';
import { isKeyScope, type KeyPrincipal, type KeyScope } from '../access/principal.ts';
import { type Clock, iso } from '../clock.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyHint } from './api-key-format.ts';
import { allowsAddress, compileAllowlist, normaliseAllowlist } from './ip-allowlist.ts';

export interface ApiKeyInfo {
  id: string;
  projectId: string;
  name: string;
  hint: string;
  scope: KeyScope;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** When the key stops working; null: never. */
  expiresAt: string | null;
  /** Addresses and CIDR ranges the key may be used from; empty: anywhere. */
  allowedIps: string[];
}

/** A key lasts 7, 30, 60 or 90 days, or (null) until revoked. */
export const EXPIRY_DAYS = [7, 30, 60, 90] as const;
export type ExpiryDays = (typeof EXPIRY_DAYS)[number];
export const DEFAULT_EXPIRY_DAYS: ExpiryDays = 90;
export const MAX_KEY_NAME_LENGTH = 100;

export interface NewKey {
  name: string;
  scope: KeyScope;
  /** Days until the key expires, or null for never; absent: 90. */
  expiresInDays?: number | null;
  /** IP addresses and CIDR ranges the key may be used from; absent or empty: anywhere. */
  allowedIps?: readonly string[];
}

export interface CreatedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  info: ApiKeyInfo;
}

/** Where a request comes from, for a key's allowlist; null when it is not known. */
export interface KeyUse {
  clientIp: string | null;
}

interface VerifiedKey {
  principal: KeyPrincipal;
  allowlist: BlockList | null;
  /** Trusted from memory until then: at most VERIFIED_TTL_MS, and never past the key's expiry. */
  until: number;
}

// Writing last_used_at on every request would turn each read into a write; once a minute is enough.
const TOUCH_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * A key verified in the last few seconds is not looked up again. Revoking in this process
 * takes effect at once; a revocation made by another process (the CLI, another server) is
 * seen within this time.
 */
export const VERIFIED_TTL_MS = 5_000;
const VERIFIED_CACHE_SIZE = 10_000;

export class KeyService {
  private readonly lastTouched = new Map<string, number>();
  private readonly verified = new Map<string, VerifiedKey>();

  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly onTouchError: (error: unknown) => void;
  constructor(storage: Storage, clock: Clock, onTouchError: (error: unknown) => void = () => {}) {
    this.storage = storage;
    this.clock = clock;
    this.onTouchError = onTouchError;
  }

  /** Creates a key; `create(projectId, name, scope)` is shorthand for one with the defaults. */
  create(projectId: string, key: NewKey): Promise<CreatedKey>;
  create(projectId: string, name: string, scope?: KeyScope): Promise<CreatedKey>;
  async create(projectId: string, spec: NewKey | string, scope: KeyScope = 'admin'): Promise<CreatedKey> {
    const options: NewKey = typeof spec === 'string' ? { name: spec, scope } : spec;
    const name = options.name.trim() || 'default';
    if (name.length > MAX_KEY_NAME_LENGTH) throw invalid(`name: at most ${MAX_KEY_NAME_LENGTH} characters`);
    if (!isKeyScope(options.scope)) throw invalid('scope: must be admin, read or ingest');
    const days = options.expiresInDays === undefined ? DEFAULT_EXPIRY_DAYS : options.expiresInDays;
    if (days !== null && !(EXPIRY_DAYS as readonly number[]).includes(days))
      throw invalid('expiresInDays: must be 7, 30, 60, 90 or null (never)');
    const allowedIps = normaliseAllowlist(options.allowedIps ?? []);
    if (!(await findProject(this.storage.db, projectId))) throw notFound(`Project ${projectId} not found`);
    const now = this.clock();
    const key = generateApiKey();
    const row: ApiKeyRow = {
      id: newId('key'),
      project_id: projectId,
      name,
      key_hash: hashApiKey(key),
      hint: keyHint(key),
      scope: options.scope,
      created_at: iso(now),
      last_used_at: null,
      revoked_at: null,
      expires_at: days === null ? null : iso(new Date(now.getTime() + days * DAY_MS)),
      allowed_ips: allowedIps.length > 0 ? JSON.stringify(allowedIps) : null,
    };
    await insertApiKey(this.storage.db, row);
    return { key, info: toInfo(row) };
  }

  async list(projectId: string): Promise<ApiKeyInfo[]> {
    if (!(await findProject(this.storage.db, projectId))) throw notFound(`Project ${projectId} not found`);
    return (await listApiKeys(this.storage.db, projectId)).map(toInfo);
  }

  /**
   * Revokes a key; revoking it again changes nothing. With `projectId`, a key of another
   * project is not found, as if it did not exist.
   */
  async revoke(keyId: string, scope: { projectId?: string } = {}): Promise<ApiKeyInfo> {
    const existing = await findApiKey(this.storage.db, keyId);
    if (!existing || (scope.projectId !== undefined && existing.project_id !== scope.projectId))
      throw notFound(`API key ${keyId} not found`);
    for (const [hash, entry] of this.verified)
      if (entry.principal.keyId === keyId) this.verified.delete(hash);
    const revoked = await revokeApiKey(this.storage.db, keyId, iso(this.clock()));
    return toInfo(revoked ?? (await findApiKey(this.storage.db, keyId)) ?? existing);
  }

  /**
   * Resolves a bearer key to its principal: `unauthenticated` when it is unknown, revoked or
   * expired; `forbidden` when the request comes from outside the key's allowlist (checked on
   * every request, cached or not; an unknown address never passes a list).
   */
  async authenticate(rawKey: string, use: KeyUse = { clientIp: null }): Promise<KeyPrincipal> {
    // Shape and checksum first: a malformed key never costs a database read.
    if (!isWellFormedApiKey(rawKey)) throw new DomainError('unauthenticated', 'Malformed API key');
    const hash = hashApiKey(rawKey);
    const now = this.clock().getTime();
    let verified = this.verified.get(hash);
    if (!verified || verified.until <= now) {
      verified = await this.verify(hash, now);
      if (this.verified.size >= VERIFIED_CACHE_SIZE)
        this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(hash, verified);
    }
    const { principal, allowlist } = verified;
    if (allowlist && !(use.clientIp !== null && allowsAddress(allowlist, use.clientIp))) {
      throw new DomainError(
        'forbidden',
        use.clientIp === null
          ? 'This API key may be used only from its allowed addresses'
          : `This API key may not be used from ${use.clientIp}`,
      );
    }
    this.touch(principal.keyId, now);
    return principal;
  }

  private async verify(hash: string, now: number): Promise<VerifiedKey> {
    const row = await findApiKeyByHash(this.storage.db, hash);
    if (!row) throw new DomainError('unauthenticated', 'Unknown API key');
    if (row.revoked_at !== null) throw new DomainError('unauthenticated', 'This API key has been revoked');
    const expiresAt = row.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.expires_at);
    if (expiresAt <= now)
      throw new DomainError('unauthenticated', `This API key expired on ${row.expires_at}`);
    if (!isKeyScope(row.scope)) throw new DomainError('unauthenticated', 'This API key has an unknown scope');
    const allowedIps = parseAllowedIps(row.allowed_ips);
    return {
      principal: { kind: 'key', keyId: row.id, projectId: row.project_id, scope: row.scope },
      allowlist: allowedIps.length > 0 ? compileAllowlist(allowedIps) : null,
      until: Math.min(now + VERIFIED_TTL_MS, expiresAt),
    };
  }

  private touch(keyId: string, now: number): void {
    if (now - (this.lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(keyId, now);
    touchApiKey(this.storage.db, keyId, iso(new Date(now))).catch(this.onTouchError);
  }
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    hint: row.hint,
    // Only create() writes a scope, and it accepts known scopes only.
    scope: row.scope as KeyScope,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    allowedIps: parseAllowedIps(row.allowed_ips),
  };
}

function parseAllowedIps(stored: string | null): string[] {
  return stored === null ? [] : (JSON.parse(stored) as string[]);
}
