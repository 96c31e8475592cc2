import { type FormEvent, useState } from 'react';
import { useParams } from 'wouter';
import { useCreateKey, useKeys, useRevokeKey } from '../api/keys.ts';
import type { CreatedKeyPayload, KeyInfoPayload, KeyScope, NewKeyPayload } from '../api/types.ts';
import { Button } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { useCan } from '../components/current-user.tsx';
import { Dialog } from '../components/dialog.tsx';
import { FormError, SelectField, TextAreaField, TextField } from '../components/field.tsx';
import { DateTime } from '../components/format.tsx';
import { WarningIcon } from '../components/icons.tsx';
import { Page, Section } from '../components/page.tsx';
import { RemoveDialog } from '../components/remove-dialog.tsx';
import { EmptyState, QueryView } from '../components/states.tsx';
import { Table } from '../components/table.tsx';

const SCOPES: { value: KeyScope; label: string; hint: string }[] = [
  { value: 'admin', label: 'Admin', hint: 'Everything in this project: jobs, analytics, settings.' },
  { value: 'read', label: 'Read-only', hint: 'Every GET of the API, nothing else.' },
  { value: 'ingest', label: 'Ingestion', hint: 'Sends analytics events only: for a docs server.' },
];
const SCOPE_LABEL = Object.fromEntries(SCOPES.map((s) => [s.value, s.label])) as Record<KeyScope, string>;
const EXPIRIES = ['7', '30', '60', '90', 'never'] as const;

/** The project id (to copy), and for admins the project's API keys: create, list, revoke. */
export default function KeysPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const canWrite = useCan('write');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKeyPayload | null>(null);

  return (
    <Page
      title="API keys"
      description="Keys let scripts, CI and docs servers call the API for this project."
      actions={
        canWrite && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create key
          </Button>
        )
      }
    >
      <Section title="Project id" description="API paths name the project: /v2/agent/{projectId}/job.">
        <div className="copy-row">
          <code className="copy-row__value" data-testid="project-id">
            {projectId}
          </code>
          <CopyButton value={projectId} what="project id" />
        </div>
      </Section>
      {created && <NewKey created={created} onDismiss={() => setCreated(null)} />}
      <Section title="Keys">
        {canWrite ? (
          <KeysTable projectId={projectId} />
        ) : (
          <EmptyState title="Only admins see this project's keys">
            <p>Your role lets you view jobs and analytics. Ask an admin or owner for a key.</p>
          </EmptyState>
        )}
      </Section>
      {canWrite && (
        <Dialog open={creating} title="Create an API key" onClose={() => setCreating(false)}>
          <CreateKeyForm
            projectId={projectId}
            onCancel={() => setCreating(false)}
            onCreated={(key) => {
              setCreating(false);
              setCreated(key);
            }}
          />
        </Dialog>
      )}
    </Page>
  );
}

function KeysTable({ projectId }: { projectId: string }) {
  const keys = useKeys(projectId);
  const [revoking, setRevoking] = useState<KeyInfoPayload | null>(null);
  return (
    <>
      <QueryView query={keys} label="Loading keys">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No keys yet">
              <p>Create one to call the API from a script or to send analytics from a docs server.</p>
            </EmptyState>
          ) : (
            <Table
              caption="API keys"
              rows={list}
              rowKey={(key) => key.id}
              muted={(key) => keyState(key) !== 'active'}
              columns={[
                {
                  header: 'Name',
                  cell: (key) => (
                    <>
                      <span className="strong">{key.name}</span>
                      {keyState(key) !== 'active' && <span className="badge">{keyState(key)}</span>}
                    </>
                  ),
                },
                { header: 'Scope', cell: (key) => SCOPE_LABEL[key.scope] ?? key.scope },
                { header: 'Key', cell: (key) => <code>{key.hint}</code> },
                { header: 'Created', cell: (key) => <DateTime iso={key.createdAt} /> },
                {
                  header: 'Last used',
                  cell: (key) => <DateTime iso={key.lastUsedAt} style="relative" />,
                },
                {
                  header: 'Expires',
                  cell: (key) => (key.expiresAt ? <DateTime iso={key.expiresAt} /> : 'never'),
                },
                {
                  header: 'Allowed from',
                  cell: (key) => (key.allowedIps.length ? key.allowedIps.join(', ') : 'anywhere'),
                },
                {
                  header: 'Actions',
                  hideHeader: true,
                  align: 'end',
                  cell: (key) =>
                    key.revokedAt === null && (
                      <Button
                        small
                        variant="danger"
                        onClick={() => setRevoking(key)}
                        aria-label={`Revoke ${key.name}`}
                      >
                        Revoke
                      </Button>
                    ),
                },
              ]}
            />
          )
        }
      </QueryView>
      <RevokeDialog projectId={projectId} keyInfo={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function keyState(key: KeyInfoPayload): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= Date.now()) return 'expired';
  return 'active';
}

function RevokeDialog({
  projectId,
  keyInfo,
  onClose,
}: {
  projectId: string;
  keyInfo: KeyInfoPayload | null;
  onClose: () => void;
}) {
  const removal = useRevokeKey(projectId);
  return (
    <RemoveDialog
      item={keyInfo}
      removal={removal}
      title={`Revoke ${keyInfo?.name ?? 'key'}?`}
      confirmLabel="Revoke key"
      removed={(k) => `Revoked ${k.name}`}
      onClose={onClose}
    >
      <p>
        Requests with the key <code>{keyInfo?.hint}</code> are refused from now on. This cannot be undone.
      </p>
    </RemoveDialog>
  );
}

function CreateKeyForm({
  projectId,
  onCancel,
  onCreated,
}: {
  projectId: string;
  onCancel: () => void;
  onCreated: (created: CreatedKeyPayload) => void;
}) {
  const create = useCreateKey(projectId);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('admin');
  const [expiry, setExpiry] = useState<(typeof EXPIRIES)[number]>('90');
  const [allowed, setAllowed] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const allowedIps = allowed
      .split(/[\s,]+/)
      .map((entry) => entry.trim())
      .filter(Boolean);
    const body: NewKeyPayload = {
      name: name.trim(),
      scope,
      expiresInDays: expiry === 'never' ? null : (Number(expiry) as NewKeyPayload['expiresInDays']),
      ...(allowedIps.length ? { allowedIps } : {}),
    };
    create.mutate(body, { onSuccess: onCreated });
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="Name"
        required
        autoFocus
        hint="Who or what uses it: “CI”, “docs server”."
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <SelectField
        label="Scope"
        value={scope}
        hint={SCOPES.find((s) => s.value === scope)?.hint}
        onChange={(event) => setScope(event.target.value as KeyScope)}
      >
        {SCOPES.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </SelectField>
      <SelectField
        label="Expires"
        value={expiry}
        onChange={(event) => setExpiry(event.target.value as (typeof EXPIRIES)[number])}
      >
        {EXPIRIES.map((days) => (
          <option key={days} value={days}>
            {days === 'never' ? 'Never' : `In ${days} days`}
          </option>
        ))}
      </SelectField>
      <TextAreaField
        label="Allowed IP addresses (optional)"
        hint="IP addresses or CIDR ranges, one per line (203.0.113.7, 10.0.0.0/8). Empty: any address."
        rows={3}
        spellCheck={false}
        value={allowed}
        onChange={(event) => setAllowed(event.target.value)}
      />
      <FormError error={create.error} />
      <div className="dialog__actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create key
        </Button>
      </div>
    </form>
  );
}

/** The new key, once: it cannot be shown again (only its hash is stored). */
function NewKey({ created, onDismiss }: { created: CreatedKeyPayload; onDismiss: () => void }) {
  return (
    <section className="callout callout--warning" aria-label="New API key">
      <p className="callout__title">
        <WarningIcon /> Copy the key “{created.info.name}” now: it is shown only once.
      </p>
      <div className="copy-row">
        <code className="copy-row__value" data-testid="new-key">
          {created.key}
        </code>
        <CopyButton value={created.key} what="new key" />
      </div>
      <p>Docwright keeps only a hash of it. If it is lost, revoke it and create another.</p>
      <Button onClick={onDismiss}>I have stored it</Button>
    </section>
  );
}
