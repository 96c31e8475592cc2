import { Redirect } from 'wouter';
import { useProjects } from '../api/projects.ts';
import { lastProject, projectPath } from '../components/current-project.ts';
import { QueryView } from '../components/states.tsx';

/** `/`: the project used last (or the first one) when there is one, else the projects page. */
export function HomeRedirect() {
  const projects = useProjects();
  return (
    <QueryView query={projects} label="Loading projects">
      {(list) => {
        const last = lastProject();
        const project = list.find((p) => p.id === last) ?? list[0];
        return <Redirect to={project ? projectPath(project.id) : '/projects'} replace />;
      }}
    </QueryView>
  );
}
