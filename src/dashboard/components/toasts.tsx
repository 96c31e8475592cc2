import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { CloseIcon } from './icons.tsx';

type Tone = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  tone: Tone;
  message: string;
}
interface Toaster {
  success(message: string): void;
  error(message: string): void;
  info(message: string): void;
}

const ToastContext = createContext<Toaster | null>(null);
const LIFETIME_MS = { success: 5000, info: 6000, error: 10000 } satisfies Record<Tone, number>;

/**
 * Short notices ("Key revoked"), shown at the corner and read out by screen readers through
 * live regions that exist from the start (a region added with its text is often not announced).
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (tone: Tone, message: string) => {
      const id = next.current++;
      setToasts((all) => [...all.slice(-3), { id, tone, message }]);
      setTimeout(() => dismiss(id), LIFETIME_MS[tone]);
    },
    [dismiss],
  );
  const toaster = useMemo<Toaster>(
    () => ({
      success: (message) => push('success', message),
      error: (message) => push('error', message),
      info: (message) => push('info', message),
    }),
    [push],
  );
  const list = (tones: Tone[]) =>
    toasts
      .filter((t) => tones.includes(t.tone))
      .map((t) => (
        <div key={t.id} className={`toast toast--${t.tone}`}>
          <span>{t.message}</span>
          <button type="button" className="toast__close" onClick={() => dismiss(t.id)}>
            <CloseIcon />
            <span className="visually-hidden">Dismiss</span>
          </button>
        </div>
      ));
  return (
    <ToastContext.Provider value={toaster}>
      {children}
      <section className="toasts" aria-label="Notifications">
        <div role="status">{list(['success', 'info'])}</div>
        <div role="alert">{list(['error'])}</div>
      </section>
    </ToastContext.Provider>
  );
}

export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  if (!toaster) throw new Error('useToast outside ToastProvider');
  return toaster;
}
