const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 days ago", "in 2 months", "now". */
export function fromNow(iso: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** A date shown short, with the full date and time on hover and for machines. */
export function DateTime({ iso, style = 'date' }: { iso: string | null; style?: 'date' | 'relative' }) {
  if (!iso) return <span className="muted">never</span>;
  const date = new Date(iso);
  const text = style === 'relative' ? fromNow(iso) : dateOnly.format(date);
  return (
    <time dateTime={iso} title={dateTime.format(date)}>
      {text}
    </time>
  );
}

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));

/** `$2.20`; under a dollar, four decimals (`$0.0042`) so a small cost does not read as nothing. */
export function formatUsd(amount: number): string {
  if (amount > 0 && amount < 0.0001) return '< $0.0001';
  return `$${amount >= 1 || amount === 0 ? amount.toFixed(2) : amount.toFixed(4)}`;
}
