/**
 * The top pages table's columns. Like the totals, the AI purposes sit where they add up: with
 * the default setting the crawlers' columns come after Total, which leaves them out; when the
 * project counts crawlers as AI, the four purposes split the AI column.
 */
import type { Column } from '../../components/table.tsx';
import type { PageRowPayload } from './analytics-api.ts';
import { fmt } from './numbers.tsx';

const number = (header: string, value: (row: PageRowPayload) => number): Column<PageRowPayload> => ({
  header,
  cell: (row) => fmt(value(row)),
  align: 'end',
});

export function pageColumns(crawlersAsAi: boolean | null): Column<PageRowPayload>[] {
  const base: Column<PageRowPayload>[] = [
    { header: 'Page', cell: (row) => <PagePath path={row.path} /> },
    number('Human', (row) => row.human),
    number('AI', (row) => row.ai),
    { header: 'Total', cell: (row) => <strong>{fmt(row.total)}</strong>, align: 'end' },
  ];
  if (crawlersAsAi === null) return base;
  if (crawlersAsAi)
    return [
      ...base,
      number('AI assistants', (row) => row.aiAssistant),
      number('AI search', (row) => row.aiSearch),
      number('AI training', (row) => row.aiTraining),
      number('Other AI', (row) => row.aiOther),
    ];
  return [
    ...base,
    number('Search crawlers', (row) => row.aiSearch),
    number('Training crawlers', (row) => row.aiTraining),
    number('Other crawlers', (row) => row.aiOther),
  ];
}

/** A path that may wrap after each slash (and at hyphens), never inside a word. */
export function PagePath({ path }: { path: string }) {
  const parts = path.split(/(?<=\/)/);
  return (
    <span className="page-path">
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one path, in order, never reordered
        <span key={i}>
          {i > 0 && <wbr />}
          {part}
        </span>
      ))}
    </span>
  );
}
