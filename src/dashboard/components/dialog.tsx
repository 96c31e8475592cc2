import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Button } from './button.tsx';
import { FormError, TextField } from './field.tsx';

interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/**
 * A modal on the native <dialog>: the browser traps focus, Escape closes it, and focus returns
 * to what opened it. Its content is mounted only while open, so each opening starts afresh.
 */
export function Dialog({ open, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <h2 className="dialog__title" id={titleId}>
            {title}
          </h2>
          {children}
        </>
      )}
    </dialog>
  );
}

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: unknown;
  /** A word the person must type before a destructive action goes ahead (a project's name). */
  typeToConfirm?: string;
  /**
   * The confirm button's look: red for what destroys or cannot be taken back (the default),
   * the page's primary blue for an action that only asks to be sure (a merge).
   */
  confirmVariant?: 'danger' | 'primary';
}

/** Asks before an action (destructive ones by default); its error, if any, is shown in the dialog. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy = false,
  error,
  typeToConfirm,
  confirmVariant = 'danger',
}: ConfirmDialogProps) {
  return (
    <Dialog open={open} title={title} onClose={onCancel}>
      <ConfirmBody
        confirmLabel={confirmLabel}
        onConfirm={onConfirm}
        onCancel={onCancel}
        busy={busy}
        error={error}
        typeToConfirm={typeToConfirm}
        confirmVariant={confirmVariant}
      >
        {children}
      </ConfirmBody>
    </Dialog>
  );
}

function ConfirmBody({
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
  error,
  typeToConfirm,
  confirmVariant,
}: Omit<ConfirmDialogProps, 'open' | 'title'>) {
  const [typed, setTyped] = useState('');
  const ready = typeToConfirm === undefined || typed.trim() === typeToConfirm;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ready) onConfirm();
  };
  return (
    <form onSubmit={submit}>
      <div className="dialog__body">{children}</div>
      {typeToConfirm !== undefined && (
        <TextField
          label={
            <>
              Type <strong>{typeToConfirm}</strong> to confirm
            </>
          }
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
      )}
      <FormError error={error} />
      <div className="dialog__actions">
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button type="submit" variant={confirmVariant ?? 'danger'} busy={busy} disabled={!ready}>
          {confirmLabel}
        </Button>
      </div>
    </form>
  );
}
