/** What every part of the analytics page shows numbers with. */
import { useEffect } from 'react';
import { Table } from '../../components/table.tsx';

const numbers = new Intl.NumberFormat();
export const fmt = (value: number) => numbers.format(value);

/**
 * A `performance.mark` each time a part of the page has its data on screen: the benchmark
 * (bench/dashboard/analytics-page.ts) times the page by them, as `data-ready` shows it to tests.
 */
export function ReadyMark({ name, when }: { name: string; when: boolean }) {
  useEffect(() => {
    if (when) performance.mark(name);
  }, [name, when]);
  return null;
}

/**
 * The shared table, on a phone either kept a table (a few narrow columns: it fits) or turned
 * into one compact card per row (the top pages' eight columns would not fit). See analytics.css.
 */
export function NumbersTable<Row>({
  phone = 'table',
  ...props
}: Parameters<typeof Table<Row>>[0] & { phone?: 'table' | 'cards' }) {
  return (
    <div className={phone === 'cards' ? 'numbers-table numbers-table--cards' : 'numbers-table'}>
      <Table {...props} />
    </div>
  );
}
