import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
} from 'react';

interface FieldProps {
  label: ReactNode;
  /** Help shown under the control. */
  hint?: ReactNode;
  /** The problem with the value, shown in place and announced. */
  error?: string | null | undefined;
  className?: string;
  children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ReactNode;
}

/** A labelled control with its hint and error text wired to it for assistive technology. */
export function Field({ label, hint, error, className, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : null;
  const errorId = error ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' field--invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children({
        id,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(error ? { 'aria-invalid': true as const } : {}),
      })}
      {hint && (
        <p className="field__hint" id={hintId ?? undefined}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field__error" id={errorId ?? undefined}>
          {error}
        </p>
      )}
    </div>
  );
}

type Common = Pick<FieldProps, 'label' | 'hint' | 'error' | 'className'>;

export function TextField({
  label,
  hint,
  error,
  className,
  ...input
}: Common & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(control) => <input className="input" type="text" {...input} {...control} />}
    </Field>
  );
}

export function TextAreaField({
  label,
  hint,
  error,
  className,
  ...textarea
}: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(control) => <textarea className="input textarea" {...textarea} {...control} />}
    </Field>
  );
}

export function SelectField({
  label,
  hint,
  error,
  className,
  children,
  ...select
}: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(control) => (
        <select className="input select" {...select} {...control}>
          {children}
        </select>
      )}
    </Field>
  );
}

/** A checkbox with its label beside it and an optional hint under it. */
export function CheckboxField({
  label,
  hint,
  ...input
}: { label: ReactNode; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field field--checkbox">
      <input type="checkbox" id={id} {...input} {...(hint ? { 'aria-describedby': `${id}-hint` } : {})} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The error of a whole form (what the server said), announced when it appears. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}
