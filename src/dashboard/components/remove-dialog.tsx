import type { UseMutationResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ConfirmDialog } from './dialog.tsx';
import { useToast } from './toasts.tsx';

interface RemoveDialogProps<T extends { id: string }, Data, Failure, Context> {
  /** What is about to go; null keeps the dialog closed. */
  item: T | null;
  /** The removal, called with the item's id (the page's TanStack mutation). */
  removal: UseMutationResult<Data, Failure, string, Context>;
  title: string;
  confirmLabel: string;
  /** The toast once it is gone. */
  removed: (item: T) => string;
  onClose: () => void;
  onRemoved?: (item: T) => void;
  /** What removing it means, in a sentence or two. */
  children: ReactNode;
}

/**
 * Asks before deleting or revoking one item, runs the removal, and on success says so in a
 * toast and closes; a failure stays in the dialog. Closing clears the last attempt's error.
 */
export function RemoveDialog<T extends { id: string }, Data, Failure, Context>({
  item,
  removal,
  title,
  confirmLabel,
  removed,
  onClose,
  onRemoved,
  children,
}: RemoveDialogProps<T, Data, Failure, Context>) {
  const toast = useToast();
  const close = () => {
    removal.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      open={item !== null}
      title={title}
      confirmLabel={confirmLabel}
      busy={removal.isPending}
      error={removal.error}
      onCancel={close}
      onConfirm={() => {
        if (!item) return;
        removal.mutate(item.id, {
          onSuccess: () => {
            toast.success(removed(item));
            onRemoved?.(item);
            close();
          },
        });
      }}
    >
      {children}
    </ConfirmDialog>
  );
}
