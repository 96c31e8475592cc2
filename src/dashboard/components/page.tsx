import { type ReactNode, useEffect, useId } from 'react';

interface PageProps {
  title: string;
  /** One line under the title saying what the page is for. */
  description?: ReactNode;
  /** Buttons at the title's end (a page's main action). */
  actions?: ReactNode;
  children: ReactNode;
}

/** A page's title (also the document's) and its content. */
export function Page({ title, description, actions, children }: PageProps) {
  useEffect(() => {
    document.title = `${title} · Docwright`;
  }, [title]);
  return (
    <div className="page">
      <div className="page__header">
        <div>
          <h1 className="page__title">{title}</h1>
          {description && <p className="page__description">{description}</p>}
        </div>
        {actions && <div className="page__actions">{actions}</div>}
      </div>
      {children}
    </div>
  );
}

/** A titled part of a page. */
export function Section({
  title,
  description,
  children,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section className="section" aria-labelledby={id}>
      <h2 className="section__title" id={id}>
        {title}
      </h2>
      {description && <p className="section__description">{description}</p>}
      {children}
    </section>
  );
}
