import { type FormEvent, type ReactNode, useState } from 'react';
import { useParams } from 'wouter';
import { useProject, useUpdateProject } from '../api/projects.ts';
import { useSettings, useUpdateSettings } from '../api/settings.ts';
import type { CodeHostKind, ProjectPayload, SettingsChangePayload, SettingsPayload } from '../api/types.ts';
import { Button } from '../components/button.tsx';
import { useCan } from '../components/current-user.tsx';
import { CheckboxField, FormError, SelectField, TextAreaField, TextField } from '../components/field.tsx';
import { formatUsd } from '../components/format.tsx';
import { Page, Section } from '../components/page.tsx';
import { QueryView } from '../components/states.tsx';
import { useToast } from '../components/toasts.tsx';
import { ConnectedRepositories } from './connected-repositories.tsx';

type SaltRotation = SettingsPayload['server']['saltRotation'];
const ROTATIONS: { value: SaltRotation; label: string }[] = [
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly (Monday)' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'never', label: 'Never' },
];

/** A project's repository, agent and analytics settings; the server's own settings, read-only. */
export default function SettingsPage() {
  const { projectId } = useParams<{ projectId: string }>();
  const canWrite = useCan('write');
  const project = useProject(projectId);
  const settings = useSettings(projectId);
  return (
    <Page
      title="Settings"
      description={
        canWrite
          ? 'How jobs reach the repository and what analytics counts.'
          : 'Your role can see these settings; an admin or owner changes them.'
      }
    >
      <Section title="Repository" description="Checked like a new project's before it is saved.">
        <QueryView query={project} label="Loading the project">
          {(data) => <RepositoryForm key={data.id} project={data} readOnly={!canWrite} />}
        </QueryView>
      </Section>
      <Section
        title="Connected repositories"
        description="Source code the agent may read, never change, to check what it writes: the product's code, an SDK, an API definition."
      >
        <ConnectedRepositories projectId={projectId} canWrite={canWrite} />
      </Section>
      <QueryView query={settings} label="Loading the settings">
        {(data) => (
          <>
            <Section title="Agent" description="The model jobs run on, and how they open pull requests.">
              <AgentForm
                projectId={projectId}
                repository={project.data?.repository ?? ''}
                settings={data}
                readOnly={!canWrite}
              />
            </Section>
            <Section
              title="Cost and budget"
              description="Estimated from the server's price table per model; months are calendar months in UTC."
            >
              <BudgetForm projectId={projectId} settings={data} readOnly={!canWrite} />
            </Section>
            <Section title="Analytics">
              <AnalyticsForm projectId={projectId} settings={data} readOnly={!canWrite} />
            </Section>
            <Section title="Server" description="Deployment settings: set where the server starts.">
              <ServerSettings settings={data} />
            </Section>
          </>
        )}
      </QueryView>
    </Page>
  );
}

function SettingsForm({
  onSubmit,
  readOnly,
  busy,
  error,
  children,
}: {
  onSubmit: () => void;
  readOnly: boolean;
  busy: boolean;
  error: unknown;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="form form--settings" onSubmit={submit}>
      <fieldset className="fieldset" disabled={readOnly}>
        {children}
      </fieldset>
      <FormError error={error} />
      {!readOnly && (
        <div className="form__actions">
          <Button type="submit" variant="primary" busy={busy}>
            Save
          </Button>
        </div>
      )}
    </form>
  );
}

function RepositoryForm({ project, readOnly }: { project: ProjectPayload; readOnly: boolean }) {
  const update = useUpdateProject(project.id);
  // Where the server runs git is the owner's decision (the server refuses anyone else).
  const canMove = useCan('manage');
  const toast = useToast();
  const [name, setName] = useState(project.name);
  const [repository, setRepository] = useState(project.repository);
  const [baseBranch, setBaseBranch] = useState(project.baseBranch);
  const save = () => {
    const change = {
      ...(name.trim() !== project.name ? { name: name.trim() } : {}),
      ...(repository.trim() !== project.repository ? { repository: repository.trim() } : {}),
      ...(baseBranch.trim() !== project.baseBranch ? { baseBranch: baseBranch.trim() } : {}),
    };
    if (Object.keys(change).length === 0) {
      toast.info('Nothing changed');
      return;
    }
    update.mutate(change, {
      onSuccess: ({ warnings }) => {
        toast.success('Saved the repository settings');
        for (const warning of warnings) toast.info(warning);
      },
    });
  };
  return (
    <SettingsForm onSubmit={save} readOnly={readOnly} busy={update.isPending} error={update.error}>
      <TextField label="Project name" required value={name} onChange={(e) => setName(e.target.value)} />
      <TextField
        label="Repository"
        required
        spellCheck={false}
        hint={
          canMove || readOnly
            ? "A git URL or a path on the server's machine."
            : 'Only an owner can change the repository.'
        }
        readOnly={!canMove}
        value={repository}
        onChange={(e) => setRepository(e.target.value)}
      />
      <TextField
        label="Base branch"
        required
        spellCheck={false}
        value={baseBranch}
        onChange={(e) => setBaseBranch(e.target.value)}
      />
    </SettingsForm>
  );
}

const HOSTS: { value: CodeHostKind | ''; label: string }[] = [
  { value: '', label: 'From the repository URL' },
  { value: 'github', label: 'GitHub' },
  { value: 'gitlab', label: 'GitLab' },
  { value: 'local', label: 'Local (reviewed in Docwright)' },
];

/** A path on the server's machine rather than a URL: its jobs are reviewed and merged in Docwright. */
const isLocalPath = (repository: string) =>
  repository !== '' && !/^([a-z][a-z0-9+.-]*:\/\/|[\w.-]+@)/i.test(repository);

function AgentForm({
  projectId,
  repository,
  settings,
  readOnly,
}: {
  projectId: string;
  repository: string;
  settings: SettingsPayload;
  readOnly: boolean;
}) {
  const update = useUpdateSettings(projectId);
  const toast = useToast();
  const { agent, server } = settings;
  const [model, setModel] = useState(agent.model ?? '');
  const [draft, setDraft] = useState(agent.draft);
  const [webResearch, setWebResearch] = useState(agent.webResearch);
  const [host, setHost] = useState<CodeHostKind | ''>(agent.codeHost?.kind ?? '');
  const [apiUrl, setApiUrl] = useState(agent.codeHost?.apiUrl ?? '');
  const [hostRepository, setHostRepository] = useState(agent.codeHost?.repository ?? '');
  const [token, setToken] = useState('');
  const stored = agent.codeHost?.credentials === 'stored';

  const save = () => {
    // Only what changed: an untouched code host stays as the server worked it out.
    const change: NonNullable<SettingsChangePayload['agent']> = {};
    if (model.trim() !== (agent.model ?? '')) change.model = model.trim() || null;
    if (draft !== agent.draft) change.draft = draft;
    if (webResearch !== agent.webResearch) change.webResearch = webResearch;
    if (host !== (agent.codeHost?.kind ?? '')) change.host = host || null;
    if (apiUrl.trim() !== (agent.codeHost?.apiUrl ?? '')) change.apiUrl = apiUrl.trim() || null;
    if (hostRepository.trim() !== (agent.codeHost?.repository ?? ''))
      change.hostRepository = hostRepository.trim() || null;
    if (token) change.token = token;
    if (Object.keys(change).length === 0) {
      toast.info('Nothing changed');
      return;
    }
    update.mutate(
      { agent: change },
      {
        onSuccess: () => {
          setToken('');
          toast.success('Saved the agent settings');
        },
      },
    );
  };
  return (
    <SettingsForm onSubmit={save} readOnly={readOnly} busy={update.isPending} error={update.error}>
      <TextField
        label="Model"
        spellCheck={false}
        placeholder={server.defaultModel ?? 'provider:model-id'}
        hint={
          server.defaultModel
            ? `provider:model-id. Empty: the server's default, ${server.defaultModel}.`
            : 'provider:model-id, e.g. anthropic:claude-sonnet-4-5. The server has no default model.'
        }
        value={model}
        onChange={(e) => setModel(e.target.value)}
      />
      <CheckboxField
        label="Open pull requests as drafts"
        checked={draft}
        onChange={(e) => setDraft(e.target.checked)}
      />
      <CheckboxField
        label="Let the agent read web pages (fetch_url)"
        hint="For facts the repository does not hold, such as a dependency's documentation. Pages are read as text (up to 5 MB and 15 s each), from public addresses only unless DOCWRIGHT_ALLOW_PRIVATE_NETWORKS allows more."
        checked={webResearch}
        onChange={(e) => setWebResearch(e.target.checked)}
      />
      <SelectField
        label="Code host"
        value={host}
        onChange={(e) => setHost(e.target.value as CodeHostKind | '')}
      >
        {HOSTS.map((h) => (
          <option key={h.value} value={h.value}>
            {h.label}
          </option>
        ))}
      </SelectField>
      {host === 'local' || (host === '' && isLocalPath(repository)) ? (
        <p className="field__hint">
          The repository is on this machine: a job's changes are reviewed and merged on its page here, with no
          code host or token.
        </p>
      ) : (
        <>
          <TextField
            label="API URL (optional)"
            type="url"
            spellCheck={false}
            hint="For GitHub Enterprise or a self-managed GitLab; empty for github.com and gitlab.com."
            value={apiUrl}
            onChange={(e) => setApiUrl(e.target.value)}
          />
          <TextField
            label="Repository on the code host (optional)"
            spellCheck={false}
            hint="owner/name, when the repository URL does not say."
            value={hostRepository}
            onChange={(e) => setHostRepository(e.target.value)}
          />
          <TextField
            label={<>Access token {stored && <span className="badge badge--ok">stored</span>}</>}
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={stored ? 'Stored: type a new one to replace it' : ''}
            hint="Write-only: stored encrypted and never shown again."
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
        </>
      )}
    </SettingsForm>
  );
}

function BudgetForm({
  projectId,
  settings,
  readOnly,
}: {
  projectId: string;
  settings: SettingsPayload;
  readOnly: boolean;
}) {
  const update = useUpdateSettings(projectId);
  const toast = useToast();
  const budgetText = (value: number | null) => (value === null ? '' : String(value));
  const [budget, setBudget] = useState(budgetText(settings.agent.monthlyBudgetUsd));
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  const save = () => {
    const text = budget.trim().replace(/^\$/, '');
    const value = text === '' ? null : Number(text);
    if (value !== null && (!Number.isFinite(value) || value < 0)) {
      setInvalid('A number of US dollars, 0 or more; empty for no budget.');
      return;
    }
    setInvalid(undefined);
    if (value === settings.agent.monthlyBudgetUsd) {
      toast.info('Nothing changed');
      return;
    }
    update.mutate(
      { agent: { monthlyBudgetUsd: value } },
      {
        onSuccess: (saved) => {
          setBudget(budgetText(saved.agent.monthlyBudgetUsd));
          toast.success(value === null ? 'Removed the monthly budget' : 'Saved the monthly budget');
        },
      },
    );
  };
  return (
    <>
      <MonthlySpend spend={settings.spend} />
      <SettingsForm onSubmit={save} readOnly={readOnly} busy={update.isPending} error={update.error}>
        <TextField
          label="Monthly budget (USD)"
          inputMode="decimal"
          spellCheck={false}
          placeholder="No budget"
          hint="Once this month's estimated spend reaches it, new jobs and follow-ups are refused and queued turns fail until the next month or a higher budget. A running turn finishes. Empty: no budget."
          error={invalid}
          value={budget}
          onChange={(e) => setBudget(e.target.value)}
        />
      </SettingsForm>
    </>
  );
}

/** This month's estimated spend, against the budget when there is one. */
function MonthlySpend({ spend }: { spend: SettingsPayload['spend'] }) {
  const { budgetUsd, spentUsd } = spend;
  return (
    <div className="spend" data-testid="monthly-spend">
      <p>
        <strong>{formatUsd(spentUsd)}</strong> spent in {spend.month} (UTC)
        {budgetUsd === null ? ', no budget set.' : ` of a ${formatUsd(budgetUsd)} budget.`}
        {spend.unpricedTurns > 0 && ` Not counted: ${spend.unpricedTurns} turn(s) on models without a price.`}
      </p>
      {budgetUsd !== null && (
        <meter
          className="spend__meter"
          aria-label={`Spent this month: ${formatUsd(spentUsd)} of ${formatUsd(budgetUsd)}`}
          min={0}
          max={budgetUsd || 1}
          low={(budgetUsd || 1) * 0.8}
          high={(budgetUsd || 1) * 0.95}
          optimum={0}
          value={Math.min(spentUsd, budgetUsd || 1)}
        />
      )}
      {spend.budgetSpent && (
        <p className="form-error text" role="status">
          The budget is spent: new jobs and follow-ups are refused until {spend.resetsOn} (UTC) or until the
          budget is raised.
        </p>
      )}
    </div>
  );
}

function AnalyticsForm({
  projectId,
  settings,
  readOnly,
}: {
  projectId: string;
  settings: SettingsPayload;
  readOnly: boolean;
}) {
  const update = useUpdateSettings(projectId);
  const toast = useToast();
  const [origins, setOrigins] = useState(settings.analytics.allowedOrigins.join('\n'));
  const [countCrawlers, setCountCrawlers] = useState(settings.analytics.countAiCrawlersAsAi);
  const [rotation, setRotation] = useState<SaltRotation | ''>(settings.analytics.saltRotation ?? '');
  const save = () => {
    const allowedOrigins = origins
      .split(/[\s,]+/)
      .map((origin) => origin.trim())
      .filter(Boolean);
    update.mutate(
      { analytics: { allowedOrigins, countAiCrawlersAsAi: countCrawlers, saltRotation: rotation || null } },
      {
        onSuccess: (saved) => {
          setOrigins(saved.analytics.allowedOrigins.join('\n'));
          toast.success('Saved the analytics settings');
        },
      },
    );
  };
  return (
    <SettingsForm onSubmit={save} readOnly={readOnly} busy={update.isPending} error={update.error}>
      <TextAreaField
        label="Allowed origins for the tracker"
        rows={3}
        spellCheck={false}
        hint="The docs sites whose pages may send views with script.js, one per line (https://docs.example.com)."
        value={origins}
        onChange={(e) => setOrigins(e.target.value)}
      />
      <CheckboxField
        label="Count AI crawlers as AI"
        hint="Crawlers that gather training data (GPTBot, ClaudeBot…). Off: they are left out of the counts."
        checked={countCrawlers}
        onChange={(e) => setCountCrawlers(e.target.checked)}
      />
      <SelectField
        label="Visitor ids reset"
        hint="Daily: nobody can be followed across days, and multi-day ranges count visitor-days. Never: exact long-range unique visitors, with a stable pseudonym per address and browser. A change applies to views from now on."
        value={rotation}
        onChange={(e) => setRotation(e.target.value as SaltRotation | '')}
      >
        <option value="">As the server does ({settings.server.saltRotation})</option>
        {ROTATIONS.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </SelectField>
    </SettingsForm>
  );
}

function ServerSettings({ settings }: { settings: SettingsPayload }) {
  const { server } = settings;
  return (
    <dl className="facts">
      <dt>Default model</dt>
      <dd>
        {server.defaultModel ? <code>{server.defaultModel}</code> : 'none configured (DOCWRIGHT_MODEL)'}
      </dd>
      <dt>Visitor ids reset (unless a project says otherwise)</dt>
      <dd>{server.saltRotation}</dd>
      <dt>Public URL</dt>
      <dd>
        <code>{server.publicUrl}</code>
      </dd>
    </dl>
  );
}
