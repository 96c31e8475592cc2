import { useParams } from 'wouter';
import { Page } from '../components/page.tsx';
import { EmptyState } from '../components/states.tsx';

/** Placeholder: the job page is built on top of this shell separately. */
export default function JobPage() {
  const { jobId } = useParams<{ jobId: string }>();
  return (
    <Page title="Jobs">
      <EmptyState title={`Job ${jobId}`}>This job's conversation and changes will be shown here.</EmptyState>
    </Page>
  );
}
