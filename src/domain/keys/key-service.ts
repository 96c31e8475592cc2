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
import { DomainError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyHint } from './api-key-format.ts';

export interface ApiKeyInfo {
  id: string;
  projectId: string;
  name: string;
  hint: string;
  scope: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

// Writing last_used_at on every request would turn each read into a write; once a minute is enough.
const TOUCH_INTERVAL_MS = 60_000;

/**
 * A key verified in the last few seconds is not looked up again. Revoking in this process
 * takes effect at once; a revocation made by another process (the CLI, another server) is
 * seen within this time.
 */
export const VERIFIED_TTL_MS = 5_000;
const VERIFIED_CACHE_SIZE = 10_000;

export class KeyService {
  private readonly lastTouched = new Map<string, number>();
  private readonly verified = new Map<string, { principal: KeyPrincipal; until: number }>();

  private readonly storage: Storage;
  private readonly clock: Clock;
  private readonly onTouchError: (error: unknown) => void;
  constructor(storage: Storage, clock: Clock, onTouchError: (error: unknown) => void = () => {}) {
    this.storage = storage;
    this.clock = clock;
    this.onTouchError = onTouchError;
  }

  async create(
    projectId: string,
    name: string,
    scope: KeyScope = 'admin',
  ): Promise<{ key: string; info: ApiKeyInfo }> {
    if (!(await findProject(this.storage.db, projectId))) throw notFound(`Project ${projectId} not found`);
    const key = generateApiKey();
    const row: ApiKeyRow = {
      id: newId('key'),
      project_id: projectId,
      name: name.trim() || 'default',
      key_hash: hashApiKey(key),
      hint: keyHint(key),
      scope,
      created_at: iso(this.clock()),
      last_used_at: null,
      revoked_at: null,
    };
    await insertApiKey(this.storage.db, row);
    return { key, info: toInfo(row) };
  }

  async list(projectId: string): Promise<ApiKeyInfo[]> {
    if (!(await findProject(this.storage.db, projectId))) throw notFound(`Project ${projectId} not found`);
    return (await listApiKeys(this.storage.db, projectId)).map(toInfo);
  }

  async revoke(keyId: string): Promise<ApiKeyInfo> {
    for (const [hash, entry] of this.verified)
      if (entry.principal.keyId === keyId) this.verified.delete(hash);
    const revoked = await revokeApiKey(this.storage.db, keyId, iso(this.clock()));
    if (revoked) return toInfo(revoked);
    const existing = await findApiKey(this.storage.db, keyId);
    if (!existing) throw notFound(`API key ${keyId} not found`);
    return toInfo(existing); // already revoked: revoking again changes nothing
  }

  /** Resolves a bearer key to its principal, or throws `unauthenticated`. */
  async authenticate(rawKey: string): Promise<KeyPrincipal> {
    // Shape and checksum first: a malformed key never costs a database read.
    if (!isWellFormedApiKey(rawKey)) throw new DomainError('unauthenticated', 'Malformed API key');
    const hash = hashApiKey(rawKey);
    const now = this.clock().getTime();
    const cached = this.verified.get(hash);
    if (cached && cached.until > now) {
      this.touch(cached.principal.keyId, now);
      return cached.principal;
    }
    const row = await findApiKeyByHash(this.storage.db, hash);
    if (!row) throw new DomainError('unauthenticated', 'Unknown API key');
    if (row.revoked_at !== null) throw new DomainError('unauthenticated', 'This API key has been revoked');
    if (!isKeyScope(row.scope)) throw new DomainError('unauthenticated', 'This API key has an unknown scope');
    const principal: KeyPrincipal = {
      kind: 'key',
      keyId: row.id,
      projectId: row.project_id,
      scope: row.scope,
    };
    if (this.verified.size >= VERIFIED_CACHE_SIZE)
      this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(hash, { principal, until: now + VERIFIED_TTL_MS });
    this.touch(row.id, now);
    return principal;
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
    scope: row.scope,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
