import { Page } from '../components/page.tsx';
import { EmptyState } from '../components/states.tsx';

/** Placeholder: the jobs pages are built on top of this shell separately. */
export default function JobsPage() {
  return (
    <Page title="Jobs">
      <EmptyState title="Jobs">The jobs of this project will be listed here.</EmptyState>
    </Page>
  );
}
