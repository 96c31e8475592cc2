/**
 * Tokens and estimated cost, as a job, a turn and the job list show them. Costs are estimates
 * from the server's price table; a model without a price shows "unknown", never $0.
 */
import { formatUsd } from '../../components/format.tsx';
import type { Job } from './job-api.ts';

const numbers = new Intl.NumberFormat();
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** "1.2M in · 100K out" with the exact counts on hover. */
export function Tokens({ inputTokens, outputTokens }: { inputTokens: number; outputTokens: number }) {
  return (
    <span title={`${numbers.format(inputTokens)} input and ${numbers.format(outputTokens)} output tokens`}>
      {compact.format(inputTokens)} in · {compact.format(outputTokens)} out
    </span>
  );
}

/** A job's estimated cost: a lower bound marked with + when some turns have no price. */
export function JobCost({ usage }: { usage: Job['usage'] }) {
  if (usage.costUsd === null) {
    return (
      <span className="muted" title="The job's model has no price in the server's price table">
        unknown
      </span>
    );
  }
  if (usage.unpricedTurns > 0) {
    return (
      <span
        title={`Estimated; leaves out ${usage.unpricedTurns} turn(s) whose model has no price in the server's price table`}
      >
        ≥ {formatUsd(usage.costUsd)}
      </span>
    );
  }
  return <span title="Estimated from the server's price table">{formatUsd(usage.costUsd)}</span>;
}
