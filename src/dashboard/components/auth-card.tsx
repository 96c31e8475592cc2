import type { ReactNode } from 'react';

/** The signed-out pages' frame: the name, one card, nothing else. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <p className="auth-card__brand">
          <span className="header__logo" aria-hidden="true">
            D
          </span>
          Docwright
        </p>
        <h1 className="auth-card__title">{title}</h1>
        {children}
      </div>
    </main>
  );
}
