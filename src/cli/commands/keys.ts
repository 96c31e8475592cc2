import type { KeyScope } from '../../domain/access/principal.ts';
import type { ApiKeyInfo } from '../../domain/keys/key-service.ts';
import { withServices } from '../context.ts';
import { print, table } from '../output.ts';

export async function createKeyCommand(options: {
  project: string;
  name?: string;
  scope?: KeyScope;
  /** Days until the key expires; null: never. */
  expiresInDays: number | null;
  allowedIps: string[];
  json: boolean;
}) {
  const created = await withServices(options, (s) =>
    s.keys.create(options.project, {
      name: options.name ?? 'default',
      scope: options.scope ?? 'admin',
      expiresInDays: options.expiresInDays,
      allowedIps: options.allowedIps,
    }),
  );
  print(options.json, { key: created.key, ...created.info }, (k) =>
    [
      `Created ${k.scope} API key ${k.id} for project ${k.projectId}.`,
      `Expires: ${expiry(k)}`,
      `Allowed from: ${allowedFrom(k, ', ')}`,
      `Key (shown once, store it now): ${k.key}`,
    ].join('\n'),
  );
}

export async function listKeysCommand(options: { project: string; json: boolean }) {
  const keys = await withServices(options, (s) => s.keys.list(options.project));
  print(options.json, keys, (list) =>
    table(
      ['ID', 'NAME', 'SCOPE', 'KEY', 'CREATED', 'LAST USED', 'EXPIRES', 'ALLOWED IPS', 'REVOKED'],
      list.map((k) => [
        k.id,
        k.name,
        k.scope,
        k.hint,
        k.createdAt,
        k.lastUsedAt ?? '-',
        expiry(k),
        allowedFrom(k),
        k.revokedAt ?? '-',
      ]),
    ),
  );
}

export async function revokeKeyCommand(keyId: string, options: { json: boolean }) {
  const key = await withServices(options, (s) => s.keys.revoke(keyId));
  print(options.json, key, (k) => `Revoked API key ${k.id} (${k.name}) at ${k.revokedAt}`);
}

const expiry = (key: ApiKeyInfo) => key.expiresAt ?? 'never';
const allowedFrom = (key: ApiKeyInfo, separator = ',') =>
  key.allowedIps.length > 0 ? key.allowedIps.join(separator) : 'anywhere';
