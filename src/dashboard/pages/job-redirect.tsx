import { useQuery } from '@tanstack/react-query';
import { Redirect, useParams } from 'wouter';
import { api, seg } from '../api/client.ts';
import { projectPath } from '../components/current-project.ts';
import { QueryView } from '../components/states.tsx';

/** `/jobs/{jobId}` (where old review links land): finds the job's project and opens its page. */
export default function JobRedirect() {
  const { jobId } = useParams<{ jobId: string }>();
  const where = useQuery({
    queryKey: ['job-location', jobId],
    queryFn: () => api.get<{ projectId: string; jobId: string }>(`/jobs/${seg(jobId)}`),
  });
  return (
    <QueryView query={where} label="Finding the job">
      {(found) => <Redirect to={`${projectPath(found.projectId)}/${seg(found.jobId)}`} replace />}
    </QueryView>
  );
}
