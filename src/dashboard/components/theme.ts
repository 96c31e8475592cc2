import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const STORAGE_KEY = 'docwright.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The theme the person chose here before, if any (else the system's applies). */
export function storedTheme(): Theme | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

/** Sets `data-theme` on <html>, which the style sheets follow over prefers-color-scheme. */
export function applyTheme(theme: Theme | null): void {
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

const systemTheme = (): Theme => (matchMedia(DARK_QUERY).matches ? 'dark' : 'light');

/** The theme in effect and a way to choose one, remembered in localStorage. */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [chosen, setChosen] = useState<Theme | null>(storedTheme);
  const [system, setSystem] = useState<Theme>(systemTheme);
  useEffect(() => {
    const media = matchMedia(DARK_QUERY);
    const update = () => setSystem(media.matches ? 'dark' : 'light');
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, []);
  const choose = (theme: Theme) => {
    setChosen(theme);
    applyTheme(theme);
    try {
      localStorage.setItem(STORAGE_KEY, theme);
    } catch {
      // Private windows may refuse storage: the choice then lasts this page only.
    }
  };
  return [chosen ?? system, choose];
}
