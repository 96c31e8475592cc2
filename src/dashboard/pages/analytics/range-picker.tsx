/**
 * Chooses the analytics page's days: a preset, or two dates. Days are the viewer's own
 * (its time zone is named beside the picker).
 */
import { type FormEvent, useId, useState } from 'react';
import { Button } from '../../components/button.tsx';
import { type DateRange, PRESETS, type PresetId, rangeProblem, timeZoneLabel } from './date-range.ts';

export type RangeChoice = { preset: PresetId } | { custom: DateRange };

export function RangePicker({
  choice,
  range,
  onChange,
}: {
  choice: RangeChoice;
  range: DateRange;
  onChange: (choice: RangeChoice) => void;
}) {
  const presetId = useId();
  const current = 'preset' in choice ? choice.preset : 'custom';
  const [editing, setEditing] = useState(current === 'custom');
  return (
    <div className="range">
      <div className="field range__preset">
        <label className="field__label" htmlFor={presetId}>
          Dates
        </label>
        <select
          id={presetId}
          className="input select"
          value={editing ? 'custom' : current}
          onChange={(event) => {
            const value = event.target.value;
            if (value === 'custom') setEditing(true);
            else {
              setEditing(false);
              onChange({ preset: value as PresetId });
            }
          }}
        >
          {PRESETS.map((preset) => (
            <option key={preset.id} value={preset.id}>
              {preset.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </div>
      {editing && <CustomRange initial={range} onApply={(custom) => onChange({ custom })} />}
      <p className="range__zone muted">Days in your time zone, {timeZoneLabel()}</p>
    </div>
  );
}

function CustomRange({ initial, onApply }: { initial: DateRange; onApply: (range: DateRange) => void }) {
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const [problem, setProblem] = useState<string | null>(null);
  const fromId = useId();
  const toId = useId();
  const errorId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = rangeProblem({ from, to });
    setProblem(found);
    if (!found) onApply({ from, to });
  };
  return (
    <form className="range__custom" onSubmit={submit} aria-label="Custom dates" noValidate>
      <div className="field">
        <label className="field__label" htmlFor={fromId}>
          From
        </label>
        <input
          id={fromId}
          className="input"
          type="date"
          value={from}
          max={to || undefined}
          onChange={(event) => setFrom(event.target.value)}
          aria-describedby={problem ? errorId : undefined}
          required
        />
      </div>
      <div className="field">
        <label className="field__label" htmlFor={toId}>
          To (included)
        </label>
        <input
          id={toId}
          className="input"
          type="date"
          value={to}
          min={from || undefined}
          onChange={(event) => setTo(event.target.value)}
          aria-describedby={problem ? errorId : undefined}
          required
        />
      </div>
      <Button type="submit">Show</Button>
      {problem && (
        <p className="field__error range__error" id={errorId} role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
