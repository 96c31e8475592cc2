import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useProjects } from '../api/projects.ts';
import {
  lastProject,
  projectIdFromPath,
  projectPath,
  rememberProject,
  sectionFromPath,
} from './current-project.ts';
import { useCan } from './current-user.tsx';
import { CloseIcon, MenuIcon, MoonIcon, SunIcon } from './icons.tsx';
import { useTheme } from './theme.ts';
import { UserMenu } from './user-menu.tsx';

const PROJECT_SECTIONS = [
  { section: 'jobs', label: 'Jobs' },
  { section: 'automations', label: 'Automations' },
  { section: 'analytics', label: 'Analytics' },
  { section: 'keys', label: 'API keys' },
  { section: 'webhooks', label: 'Webhooks' },
  { section: 'settings', label: 'Settings' },
];

/** The signed-in shell: header (project switcher, theme, account), navigation, and the page. */
export function Layout({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const [navOpen, setNavOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  const shownLocation = useRef(location);

  const projectId = projectIdFromPath(location);
  useEffect(() => {
    if (projectId) rememberProject(projectId);
  }, [projectId]);

  // After a navigation, close the phone menu and move focus to the new page, as a page load would.
  useEffect(() => {
    if (shownLocation.current === location) return;
    shownLocation.current = location;
    setNavOpen(false);
    main.current?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [location]);

  // The open phone menu closes on Escape (focus back on its button) or a press outside it, as menus do.
  useEffect(() => {
    if (!navOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setNavOpen(false);
      menuButton.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node | null;
      const nav = document.getElementById('navigation');
      if (target && (nav?.contains(target) || menuButton.current?.contains(target))) return;
      setNavOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [navOpen]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <button
          ref={menuButton}
          type="button"
          className="header__menu-button"
          aria-expanded={navOpen}
          aria-controls="navigation"
          onClick={() => setNavOpen((open) => !open)}
        >
          {navOpen ? <CloseIcon /> : <MenuIcon />}
          <span className="visually-hidden">Menu</span>
        </button>
        <Link href="/" className="header__brand">
          <span className="header__logo" aria-hidden="true">
            D
          </span>
          <span className="header__brand-name">Docwright</span>
        </Link>
        <ProjectSwitcher location={location} />
        <div className="header__end">
          <ThemeToggle />
          <UserMenu />
        </div>
      </header>
      <div className="shell__body">
        <Navigation location={location} open={navOpen} />
        <main id="main" className="main" ref={main} tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

/** The project the navigation and the switcher are about: the page's, else the last one used, else the first. */
function useNavigationProject(location: string): string | null {
  const projects = useProjects();
  const fromPath = projectIdFromPath(location);
  if (fromPath) return fromPath;
  const list = projects.data ?? [];
  const last = lastProject();
  return list.find((p) => p.id === last)?.id ?? list[0]?.id ?? null;
}

function Navigation({ location, open }: { location: string; open: boolean }) {
  const owner = useCan('manage');
  const projectId = useNavigationProject(location);
  const item = (href: string, label: string) => {
    // /projects is current on the projects page only, not on every project's pages.
    const current = location === href || (href !== '/projects' && location.startsWith(`${href}/`));
    return (
      <li key={href}>
        <Link href={href} className="nav__link" aria-current={current ? 'page' : undefined}>
          {label}
        </Link>
      </li>
    );
  };
  return (
    <nav id="navigation" className={`nav${open ? ' nav--open' : ''}`} aria-label="Main">
      <div className="nav__inner">
        {projectId && (
          <ul className="nav__list">
            {PROJECT_SECTIONS.map(({ section, label }) => item(projectPath(projectId, section), label))}
          </ul>
        )}
        <ul className="nav__list nav__list--global">
          {item('/projects', 'Projects')}
          {owner && item('/users', 'Users')}
        </ul>
      </div>
    </nav>
  );
}

function ProjectSwitcher({ location }: { location: string }) {
  const projects = useProjects();
  const [, navigate] = useLocation();
  const current = useNavigationProject(location);
  const id = useId();
  if (!projects.data || projects.data.length === 0 || !current) return null;
  return (
    <div className="header__project">
      <label htmlFor={id} className="visually-hidden">
        Project
      </label>
      <select
        id={id}
        className="input select header__project-select"
        value={current}
        onChange={(event) => navigate(projectPath(event.target.value, sectionFromPath(location) ?? 'jobs'))}
      >
        {projects.data.map((project) => (
          <option key={project.id} value={project.id}>
            {project.name}
          </option>
        ))}
        {!projects.data.some((project) => project.id === current) && (
          <option value={current}>Unknown project</option>
        )}
      </select>
    </div>
  );
}

function ThemeToggle() {
  const [theme, setTheme] = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="icon-button"
      onClick={() => setTheme(next)}
      title={`Switch to the ${next} theme`}
    >
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
      <span className="visually-hidden">Switch to the {next} theme</span>
    </button>
  );
}
