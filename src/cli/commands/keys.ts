import type { KeyScope } from '../../domain/access/principal.ts';
import { withServices } from '../context.ts';
import { print, table } from '../output.ts';

export async function createKeyCommand(options: {
  project: string;
  name?: string;
  scope?: KeyScope;
  json: boolean;
}) {
  const created = await withServices(options, (s) =>
    s.keys.create(options.project, options.name ?? 'default', options.scope ?? 'admin'),
  );
  print(options.json, { key: created.key, ...created.info }, (k) =>
    [
      `Created ${k.scope} API key ${k.id} for project ${k.projectId}.`,
      `Key (shown once, store it now): ${k.key}`,
    ].join('\n'),
  );
}

export async function listKeysCommand(options: { project: string; json: boolean }) {
  const keys = await withServices(options, (s) => s.keys.list(options.project));
  print(options.json, keys, (list) =>
    table(
      ['ID', 'NAME', 'SCOPE', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
      list.map((k) => [k.id, k.name, k.scope, k.hint, k.createdAt, k.lastUsedAt ?? '-', k.revokedAt ?? '-']),
    ),
  );
}

export async function revokeKeyCommand(keyId: string, options: { json: boolean }) {
  const key = await withServices(options, (s) => s.keys.revoke(keyId));
  print(options.json, key, (k) => `Revoked API key ${k.id} (${k.name}) at ${k.revokedAt}`);
}
