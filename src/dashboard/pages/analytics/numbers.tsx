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

/** The shared table, kept a table on a phone (see analytics.css). */
export function NumbersTable<Row>(props: Parameters<typeof Table<Row>>[0]) {
  return (
    <div className="numbers-table">
      <Table {...props} />
    </div>
  );
}
