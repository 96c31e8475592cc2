import { type FormEvent, useState } from 'react';
import { useCreateAutomation, useUpdateAutomation } from '../../api/automations.ts';
import type {
  AutomationPayload,
  AutomationTriggerKind,
  CreatedAutomationPayload,
  NewAutomationPayload,
} from '../../api/types.ts';
import { Button } from '../../components/button.tsx';
import { CheckboxField, FormError, SelectField, TextAreaField, TextField } from '../../components/field.tsx';

const KINDS: Record<AutomationTriggerKind, string> = {
  code_change: 'A pull request is merged in a source repository',
  schedule: 'On a schedule (cron)',
  manual: 'Only when run by hand or through the API',
};

/** The form's fields, as text: sent as the API's body. */
interface Fields {
  name: string;
  kind: AutomationTriggerKind;
  provider: 'github' | 'gitlab';
  repository: string;
  paths: string;
  baseBranch: string;
  cron: string;
  timezone: string;
  instructions: string;
  draft: boolean;
  maxRunsPerDay: string;
}

function fieldsOf(automation: AutomationPayload | null): Fields {
  const t = automation?.trigger;
  return {
    name: automation?.name ?? '',
    kind: t?.kind ?? 'code_change',
    provider: t?.provider ?? 'github',
    repository: t?.repository ?? '',
    paths: (t?.paths ?? []).join('\n'),
    baseBranch: t?.baseBranch ?? '',
    cron: t?.cron ?? '0 9 * * 1',
    timezone: t?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC',
    instructions: automation?.instructions ?? '',
    draft: automation?.draft ?? true,
    maxRunsPerDay: String(automation?.maxRunsPerDay ?? 500),
  };
}

function triggerOf(f: Fields): NewAutomationPayload['trigger'] {
  if (f.kind === 'schedule') return { kind: f.kind, cron: f.cron.trim(), timezone: f.timezone.trim() };
  if (f.kind === 'code_change') {
    const paths = f.paths
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    return {
      kind: f.kind,
      provider: f.provider,
      repository: f.repository.trim(),
      paths,
      baseBranch: f.baseBranch.trim() || null,
    };
  }
  return { kind: f.kind };
}

/** Creates an automation, or changes one (`editing`); the trigger's kind is chosen once. */
export function AutomationForm({
  projectId,
  editing,
  onCancel,
  onCreated,
  onSaved,
}: {
  projectId: string;
  editing: AutomationPayload | null;
  onCancel: () => void;
  onCreated: (created: CreatedAutomationPayload) => void;
  onSaved: () => void;
}) {
  const create = useCreateAutomation(projectId);
  const update = useUpdateAutomation(projectId);
  const [f, setF] = useState<Fields>(() => fieldsOf(editing));
  const set = <K extends keyof Fields>(key: K, value: Fields[K]) =>
    setF((current) => ({ ...current, [key]: value }));
  const pending = create.isPending || update.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: f.name.trim(),
      trigger: triggerOf(f),
      instructions: f.instructions,
      draft: f.draft,
      maxRunsPerDay: Number(f.maxRunsPerDay),
    };
    if (editing) update.mutate({ id: editing.id, change: body }, { onSuccess: onSaved });
    else create.mutate(body, { onSuccess: onCreated });
  };
  return (
    <form className="form" onSubmit={submit}>
      <TextField
        label="Name"
        required
        autoFocus
        maxLength={200}
        placeholder="API reference follows the API"
        value={f.name}
        onChange={(event) => set('name', event.target.value)}
      />
      <SelectField
        label="Runs when"
        value={f.kind}
        disabled={editing !== null}
        hint={editing ? 'The kind of trigger cannot change; create another automation instead.' : undefined}
        onChange={(event) => set('kind', event.target.value as AutomationTriggerKind)}
      >
        {(Object.keys(KINDS) as AutomationTriggerKind[]).map((kind) => (
          <option key={kind} value={kind}>
            {KINDS[kind]}
          </option>
        ))}
      </SelectField>
      {f.kind === 'code_change' && (
        <fieldset className="fieldset">
          <legend className="field__label">Source repository</legend>
          <SelectField
            label="Host"
            value={f.provider}
            onChange={(event) => set('provider', event.target.value as Fields['provider'])}
          >
            <option value="github">GitHub</option>
            <option value="gitlab">GitLab</option>
          </SelectField>
          <TextField
            label="Repository"
            required
            placeholder={f.provider === 'github' ? 'acme/api' : 'acme/platform/api'}
            hint={f.provider === 'github' ? 'owner/name' : 'The project path, with any subgroups.'}
            value={f.repository}
            onChange={(event) => set('repository', event.target.value)}
          />
          <TextAreaField
            label="Paths (optional)"
            rows={2}
            placeholder={'src/api/**\nopenapi.yaml'}
            hint="One glob a line: only pull requests changing a matching file start a run. Empty: any change."
            value={f.paths}
            onChange={(event) => set('paths', event.target.value)}
          />
          <TextField
            label="Base branch (optional)"
            placeholder="main"
            hint="Only pull requests merged into this branch. Empty: any branch."
            value={f.baseBranch}
            onChange={(event) => set('baseBranch', event.target.value)}
          />
        </fieldset>
      )}
      {f.kind === 'schedule' && (
        <fieldset className="fieldset">
          <legend className="field__label">Schedule</legend>
          <TextField
            label="Cron expression"
            required
            placeholder="0 9 * * 1"
            hint="minute hour day month weekday: 0 9 * * 1 is Mondays at 09:00."
            value={f.cron}
            onChange={(event) => set('cron', event.target.value)}
          />
          <TextField
            label="Time zone"
            required
            placeholder="Europe/Paris"
            hint="An IANA time zone; the expression is read in it."
            value={f.timezone}
            onChange={(event) => set('timezone', event.target.value)}
          />
        </fieldset>
      )}
      <TextAreaField
        label="Instructions"
        required
        rows={4}
        placeholder="Update the API reference for what the pull request changed."
        hint="What the agent does on each run. The trigger adds its context (the pull request, the extra context of a run by hand)."
        value={f.instructions}
        onChange={(event) => set('instructions', event.target.value)}
      />
      <CheckboxField
        label="Open pull requests as drafts"
        checked={f.draft}
        onChange={(event) => set('draft', event.target.checked)}
      />
      <TextField
        label="Runs per day, at most"
        type="number"
        required
        min={1}
        max={100000}
        hint="Runs started in any 24 hours; more are refused and listed as over the daily limit."
        value={f.maxRunsPerDay}
        onChange={(event) => set('maxRunsPerDay', event.target.value)}
      />
      <FormError error={create.error ?? update.error} />
      <div className="dialog__actions">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" busy={pending}>
          {editing ? 'Save changes' : 'Create automation'}
        </Button>
      </div>
    </form>
  );
}
