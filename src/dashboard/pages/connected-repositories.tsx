import { type FormEvent, useId, useState } from 'react';
import {
  useConnectRepository,
  useContextRepositories,
  useDisconnectRepository,
} from '../api/context-repositories.ts';
import type { ContextRepositoryPayload } from '../api/types.ts';
import { Button } from '../components/button.tsx';
import { FormError, TextField } from '../components/field.tsx';
import { RemoveDialog } from '../components/remove-dialog.tsx';
import { EmptyState, QueryView } from '../components/states.tsx';
import { Table } from '../components/table.tsx';
import { useToast } from '../components/toasts.tsx';

/** RemoveDialog's items have an id: a connected repository's is its name. */
type Connected = ContextRepositoryPayload & { id: string };

/**
 * The Settings page's connected repositories: source code the project's agent may read (the
 * product's code, an SDK). Listed for everyone; connected and removed by an admin or owner.
 */
export function ConnectedRepositories({ projectId, canWrite }: { projectId: string; canWrite: boolean }) {
  const repositories = useContextRepositories(projectId);
  const removal = useDisconnectRepository(projectId);
  const [removing, setRemoving] = useState<Connected | null>(null);
  return (
    <>
      <QueryView query={repositories} label="Loading the connected repositories">
        {(list) => (
          <>
            {list.length === 0 ? (
              <EmptyState title="No repositories connected">
                <p>
                  {canWrite
                    ? 'Connect the code the documentation describes, so the agent can check it before it writes.'
                    : 'An admin or owner can connect the code the documentation describes.'}
                </p>
              </EmptyState>
            ) : (
              <Table
                caption="Repositories the agent reads"
                rows={list}
                rowKey={(repository) => repository.name}
                columns={[
                  { header: 'Name', cell: (r) => <code className="strong">{r.name}</code> },
                  { header: 'Repository', cell: (r) => <code className="break-all">{r.repository}</code> },
                  { header: 'Branch', cell: (r) => <code>{r.ref}</code> },
                  {
                    header: 'Actions',
                    hideHeader: true,
                    align: 'end',
                    cell: (r) =>
                      canWrite && (
                        <Button
                          small
                          variant="danger"
                          aria-label={`Remove ${r.name}`}
                          onClick={() => setRemoving({ ...r, id: r.name })}
                        >
                          Remove
                        </Button>
                      ),
                  },
                ]}
              />
            )}
            {/* At most 20: the server says so when one more is connected. */}
            {canWrite && <ConnectForm projectId={projectId} />}
          </>
        )}
      </QueryView>
      {canWrite && (
        <RemoveDialog
          item={removing}
          removal={removal}
          title="Remove this connected repository?"
          confirmLabel="Remove repository"
          removed={(r) => `Removed ${r.name}`}
          onClose={() => setRemoving(null)}
        >
          <p>
            The agent no longer reads <code>{removing?.name}</code>{' '}
            <span className="break-all">({removing?.repository})</span> in this project&apos;s jobs; a turn
            already running keeps what it has read. The repository itself is not touched.
          </p>
        </RemoveDialog>
      )}
    </>
  );
}

/** Name, repository and branch; checked by the server like the project's own repository. */
function ConnectForm({ projectId }: { projectId: string }) {
  const connect = useConnectRepository(projectId);
  const toast = useToast();
  const titleId = useId();
  const [name, setName] = useState('');
  const [repository, setRepository] = useState('');
  const [ref, setRef] = useState('main');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate(
      { name: name.trim(), repository: repository.trim(), ref: ref.trim() || 'main' },
      {
        onSuccess: ({ repository: connected, warnings }) => {
          toast.success(`Connected ${connected.name}`);
          for (const warning of warnings) toast.info(warning);
          setName('');
          setRepository('');
          setRef('main');
        },
      },
    );
  };
  return (
    <form className="form form--settings" aria-labelledby={titleId} onSubmit={submit}>
      <h3 className="section__subtitle" id={titleId}>
        Connect a repository
      </h3>
      <TextField
        label="Name"
        required
        spellCheck={false}
        autoCapitalize="off"
        placeholder="api"
        hint='What the agent calls it: lower-case letters, digits, ".", "_" or "-".'
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <TextField
        label="Repository"
        required
        spellCheck={false}
        placeholder="https://github.com/acme/api.git"
        hint="A git URL, or a path on the server's machine (under the directories it allows)."
        value={repository}
        onChange={(e) => setRepository(e.target.value)}
      />
      <TextField
        label="Branch"
        required
        spellCheck={false}
        value={ref}
        onChange={(e) => setRef(e.target.value)}
      />
      <FormError error={connect.error} />
      <div className="form__actions">
        <Button type="submit" variant="primary" busy={connect.isPending}>
          Connect
        </Button>
      </div>
    </form>
  );
}
