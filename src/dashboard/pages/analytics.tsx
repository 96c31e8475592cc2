import { Page } from '../components/page.tsx';
import { EmptyState } from '../components/states.tsx';

/** Placeholder: the analytics page is built on top of this shell separately. */
export default function AnalyticsPage() {
  return (
    <Page title="Analytics">
      <EmptyState title="Analytics">The docs site's visitors, human and AI, will be shown here.</EmptyState>
    </Page>
  );
}
