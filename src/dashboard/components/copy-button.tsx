import { useEffect, useState } from 'react';
import { Button } from './button.tsx';
import { CheckIcon, CopyIcon } from './icons.tsx';
import { useToast } from './toasts.tsx';

/**
 * Copies a value to the clipboard. The Clipboard API exists on https and localhost only; a
 * dashboard served over plain http elsewhere falls back to the older copy command.
 */
export async function copyText(value: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(value);
    return;
  }
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('The browser refused to copy');
}

interface CopyButtonProps {
  value: string;
  /** What is copied, for the button's accessible name and the notice ("project id"). */
  what: string;
  small?: boolean;
}

export function CopyButton({ value, what, small = false }: CopyButtonProps) {
  const toast = useToast();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await copyText(value);
      setCopied(true);
      toast.success(`Copied the ${what} to the clipboard`);
    } catch {
      toast.error(`Could not copy the ${what}: select it and copy it by hand`);
    }
  };
  return (
    <Button small={small} onClick={copy} aria-label={`Copy the ${what}`}>
      {copied ? <CheckIcon /> : <CopyIcon />}
      <span aria-hidden="true">{copied ? 'Copied' : 'Copy'}</span>
    </Button>
  );
}
