import type { ReactNode } from 'react';

export interface Column<Row> {
  /** The column heading; also each cell's label when rows become cards on a phone. */
  header: string;
  /** Heading for assistive technology only (an actions column). */
  hideHeader?: boolean;
  cell: (row: Row) => ReactNode;
  /** Right-aligned numbers, narrow action cells. */
  align?: 'start' | 'end';
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

/**
 * A plain data table. On a laptop it scrolls sideways rather than squeezing its cells; on a phone
 * each row becomes a card, each cell labelled with its column (the roles keep the table's
 * semantics, which some browsers drop when table elements are not displayed as tables).
 */
export function Table<Row>({ caption, columns, rows, rowKey, muted }: TableProps<Row>) {
  return (
    // A scrolling region must be reachable by keyboard to be scrolled by it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    <section className="table-wrap" aria-label={caption} tabIndex={0}>
      {/* biome-ignore lint/a11y/noRedundantRoles: kept when CSS displays the rows as cards */}
      <table className="table" role="table">
        <caption className="visually-hidden">{caption}</caption>
        {/* biome-ignore lint/a11y/noRedundantRoles: as above */}
        <thead role="rowgroup">
          {/* biome-ignore lint/a11y/noRedundantRoles: as above */}
          <tr role="row">
            {columns.map((column) => (
              // biome-ignore lint/a11y/noRedundantRoles: as above
              <th key={column.header} scope="col" role="columnheader" className={cellClass(column)}>
                {column.hideHeader ? <span className="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        {/* biome-ignore lint/a11y/noRedundantRoles: as above */}
        <tbody role="rowgroup">
          {rows.map((row) => (
            // biome-ignore lint/a11y/noRedundantRoles: as above
            <tr key={rowKey(row)} role="row" className={muted?.(row) ? 'table__row--muted' : undefined}>
              {columns.map((column, index) => (
                <td
                  key={column.header}
                  // biome-ignore lint/a11y/noRedundantRoles: as above
                  role="cell"
                  className={cellClass(column)}
                  // The first cell is the card's title; the others say which column they are.
                  data-label={index > 0 && !column.hideHeader ? column.header : undefined}
                >
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

function cellClass(column: { align?: 'start' | 'end' }): string | undefined {
  return column.align === 'end' ? 'cell--end' : undefined;
}
