import type { ReactNode } from 'react';

export interface Column<Row> {
  /** The column heading. */
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Right-aligned numbers, narrow action cells. */
  align?: 'start' | 'end';
  /** Hidden on narrow screens when it is secondary. */
  secondary?: boolean;
}

interface TableProps<Row> {
  /** Names the table for assistive technology (and the scroll region on narrow screens). */
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  /** Dims a row that no longer counts (a revoked key). */
  muted?: (row: Row) => boolean;
}

/** A plain data table that scrolls sideways on narrow screens rather than squeezing its cells. */
export function Table<Row>({ caption, columns, rows, rowKey, muted }: TableProps<Row>) {
  return (
    // A scrolling region must be reachable by keyboard to be scrolled by it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    <section className="table-wrap" aria-label={caption} tabIndex={0}>
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for a table
                key={index}
                scope="col"
                className={cellClass(column)}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className={muted?.(row) ? 'table__row--muted' : undefined}>
              {columns.map((column, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed for a table
                <td key={index} className={cellClass(column)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function cellClass(column: { align?: 'start' | 'end'; secondary?: boolean }): string | undefined {
  const classes = [column.align === 'end' ? 'cell--end' : '', column.secondary ? 'cell--secondary' : '']
    .filter(Boolean)
    .join(' ');
  return classes || undefined;
}
