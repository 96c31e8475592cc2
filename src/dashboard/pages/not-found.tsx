import { Link } from 'wouter';
import { Page } from '../components/page.tsx';
import { EmptyState } from '../components/states.tsx';

export default function NotFoundPage() {
  return (
    <Page title="Page not found">
      <EmptyState title="There is no page here.">
        <p>
          <Link href="/">Go to the dashboard</Link>
        </p>
      </EmptyState>
    </Page>
  );
}
