/** "Who reads": traffic by kind of reader, by operator and by agent. */
import { useState } from 'react';
import { Button } from '../../components/button.tsx';
import { Section } from '../../components/page.tsx';
import { EmptyState, QueryView } from '../../components/states.tsx';
import { type Breakdown, type ReportFilter, useBreakdown } from './analytics-api.ts';
import { fmt, NumbersTable } from './numbers.tsx';

/** Shorter, for the agents table's column of kinds. */
const CATEGORY_SHORT: Record<string, string> = {
  human: 'Person',
  ai: 'AI',
  ai_crawler: 'AI crawler',
  search: 'Search',
  bot: 'Bot',
};

const CATEGORY_LABEL: Record<string, string> = {
  human: 'People',
  ai: 'AI assistants and agents',
  ai_crawler: 'AI crawlers',
  search: 'Search engines',
  bot: 'Other bots',
};

export function BreakdownSection({
  projectId,
  filter,
  enabled,
  crawlersAsAi,
}: {
  projectId: string;
  filter: ReportFilter;
  enabled: boolean;
  crawlersAsAi: boolean | null;
}) {
  const breakdown = useBreakdown(projectId, filter, enabled);
  return (
    <Section
      title="Who reads"
      description={[
        'By kind of reader, by operator and by agent.',
        crawlersAsAi === null
          ? ''
          : `AI crawlers ${crawlersAsAi ? 'count' : 'do not count'} as AI in the totals (a setting).`,
        filter.verifiedOnly
          ? 'Verified agents only: an agent whose address its operator does not publish counts as a bot, and operators count verified views only.'
          : '',
      ]
        .filter(Boolean)
        .join(' ')}
    >
      <QueryView query={breakdown} label="Loading the breakdown">
        {(data) => <BreakdownTables breakdown={data} />}
      </QueryView>
    </Section>
  );
}

/** Rows of the operators' and of the agents' tables shown before "Show all". */
const ROWS_SHOWN = 10;

function BreakdownTables({ breakdown }: { breakdown: Breakdown }) {
  const [allAgents, setAllAgents] = useState(false);
  const [allOperators, setAllOperators] = useState(false);
  const categories = breakdown.categories.filter((c) => c.views > 0);
  const agents = allAgents ? breakdown.agents : breakdown.agents.slice(0, ROWS_SHOWN);
  const operators = allOperators ? breakdown.operators : breakdown.operators.slice(0, ROWS_SHOWN);
  if (categories.length === 0) return <EmptyState title="No readers on these days" />;
  return (
    <div className="breakdown" data-testid="breakdown">
      <div className="breakdown__kinds">
        <NumbersTable
          caption="Readers by kind"
          rows={categories}
          rowKey={(row) => row.category}
          columns={[
            { header: 'Kind', cell: (row) => CATEGORY_LABEL[row.category] ?? row.category },
            { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
            { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
          ]}
        />
        {breakdown.operators.length > 0 && (
          <div className="breakdown__operators">
            <NumbersTable
              caption="Readers by operator (all of its agents: assistants, crawlers, search)"
              rows={operators}
              rowKey={(row) => row.operator}
              columns={[
                { header: 'Operator', cell: (row) => <span className="wrap">{row.operator}</span> },
                { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
                { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
              ]}
            />
            {breakdown.operators.length > ROWS_SHOWN && (
              <Button small onClick={() => setAllOperators((all) => !all)}>
                {allOperators
                  ? 'Show fewer operators'
                  : `Show all ${fmt(breakdown.operators.length)} operators`}
              </Button>
            )}
          </div>
        )}
      </div>
      {breakdown.agents.length > 0 && (
        <div className="breakdown__agents">
          <NumbersTable
            caption="Readers by agent"
            rows={agents}
            rowKey={(row) => `${row.category}:${row.agent}`}
            columns={[
              { header: 'Agent', cell: (row) => <span className="wrap">{row.agent}</span> },
              { header: 'Kind', cell: (row) => CATEGORY_SHORT[row.category] ?? row.category },
              { header: 'Visitors', cell: (row) => fmt(row.visitors), align: 'end' },
              { header: 'Views', cell: (row) => fmt(row.views), align: 'end' },
            ]}
          />
          {breakdown.agents.length > ROWS_SHOWN && (
            <Button small onClick={() => setAllAgents((all) => !all)}>
              {allAgents ? 'Show fewer agents' : `Show all ${fmt(breakdown.agents.length)} agents`}
            </Button>
          )}
        </div>
      )}
    </div>
  );
}
