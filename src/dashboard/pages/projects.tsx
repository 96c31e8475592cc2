import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useCreateProject, useDeleteProject, useProjects } from '../api/projects.ts';
import type { ProjectPayload } from '../api/types.ts';
import { Button } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { lastProject, projectPath } from '../components/current-project.ts';
import { useCan } from '../components/current-user.tsx';
import { ConfirmDialog, Dialog } from '../components/dialog.tsx';
import { FormError, TextField } from '../components/field.tsx';
import { DateTime } from '../components/format.tsx';
import { Page } from '../components/page.tsx';
import { EmptyState, QueryView } from '../components/states.tsx';
import { Table } from '../components/table.tsx';
import { useToast } from '../components/toasts.tsx';

/** Every project, with its id to copy: open one, and for owners create (repository checked first) and delete. */
export default function ProjectsPage() {
  const projects = useProjects();
  const owner = useCan('manage');
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ProjectPayload | null>(null);
  const current = lastProject();

  return (
    <Page
      title="Projects"
      description="Each project is one documentation repository, with its jobs, API keys and analytics."
      actions={
        owner && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New project
          </Button>
        )
      }
    >
      <QueryView query={projects} label="Loading projects">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No projects yet">
              {owner ? (
                <p>Create one to point Docwright at a documentation repository.</p>
              ) : (
                <p>An owner creates projects; ask one to add yours.</p>
              )}
            </EmptyState>
          ) : (
            <Table
              caption="Projects"
              rows={list}
              rowKey={(project) => project.id}
              columns={[
                {
                  header: 'Name',
                  cell: (project) => (
                    <>
                      <Link href={projectPath(project.id)} className="strong-link">
                        {project.name}
                      </Link>
                      {project.id === current && <span className="badge badge--accent">current</span>}
                    </>
                  ),
                },
                {
                  // API paths, the tracker tag and the CLI name the project by its id.
                  header: 'Project id',
                  cell: (project) => (
                    <span className="id-cell">
                      <code data-testid="project-id">{project.id}</code>
                      <CopyButton small value={project.id} what={`project id of ${project.name}`} />
                    </span>
                  ),
                },
                {
                  header: 'Repository',
                  cell: (project) => <code className="wrap">{project.repository}</code>,
                },
                {
                  header: 'Base branch',
                  cell: (project) => <code>{project.baseBranch}</code>,
                },
                {
                  header: 'Created',
                  cell: (project) => <DateTime iso={project.createdAt} />,
                },
                ...(owner
                  ? [
                      {
                        header: 'Actions',
                        hideHeader: true,
                        align: 'end' as const,
                        cell: (project: ProjectPayload) => (
                          <Button
                            small
                            variant="danger"
                            onClick={() => setDeleting(project)}
                            aria-label={`Delete ${project.name}`}
                          >
                            Delete
                          </Button>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          )
        }
      </QueryView>
      <Dialog open={creating} title="New project" onClose={() => setCreating(false)}>
        <CreateProjectForm onDone={() => setCreating(false)} />
      </Dialog>
      <DeleteProjectDialog project={deleting} onClose={() => setDeleting(null)} />
    </Page>
  );
}

function CreateProjectForm({ onDone }: { onDone: () => void }) {
  const create = useCreateProject();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [repository, setRepository] = useState('');
  const [baseBranch, setBaseBranch] = useState('main');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), repository: repository.trim(), baseBranch: baseBranch.trim() || 'main' },
      {
        onSuccess: ({ project, warnings }) => {
          toast.success(`Created ${project.name}`);
          for (const warning of warnings) toast.info(warning);
          onDone();
          navigate(projectPath(project.id, 'settings'));
        },
      },
    );
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="Name"
        required
        autoFocus
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <TextField
        label="Repository"
        required
        hint="A git URL (https://github.com/acme/docs.git) or a path on the server's machine. It is checked before the project is created."
        value={repository}
        spellCheck={false}
        onChange={(event) => setRepository(event.target.value)}
      />
      <TextField
        label="Base branch"
        hint="The branch jobs start from and pull requests go to."
        value={baseBranch}
        spellCheck={false}
        onChange={(event) => setBaseBranch(event.target.value)}
      />
      <FormError error={create.error} />
      <div className="dialog__actions">
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" busy={create.isPending}>
          {create.isPending ? 'Checking the repository' : 'Create project'}
        </Button>
      </div>
    </form>
  );
}

function DeleteProjectDialog({ project, onClose }: { project: ProjectPayload | null; onClose: () => void }) {
  const remove = useDeleteProject();
  const toast = useToast();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={project !== null}
      title={`Delete ${project?.name ?? 'project'}?`}
      confirmLabel="Delete project"
      typeToConfirm={project?.name ?? ''}
      busy={remove.isPending}
      error={remove.error}
      onCancel={close}
      onConfirm={() => {
        if (!project) return;
        remove.mutate(project.id, {
          onSuccess: () => {
            toast.success(`Deleted ${project.name}`);
            close();
          },
        });
      }}
    >
      <p>
        This deletes the project's jobs, API keys, settings, working copies and analytics, for good. The
        repository itself is not touched.
      </p>
    </ConfirmDialog>
  );
}
