import { createContext, useContext, useEffect, useState, type MouseEvent, type ReactNode } from 'react';

/** Where the app lives: every address it shows is under this path. */
export const BASE = '/dashboard/';

/** The address within the dashboard: `scans/scan_123` → ['scans', 'scan_123']. */
export interface Route {
  /** The path's segments after /dashboard/ (decoded; empty for the home page). */
  segments: string[];
  /** Goes to `path` (relative to /dashboard/, e.g. `scans/scan_123`), adding a history entry. */
  go(path: string): void;
}

const RouteContext = createContext<Route>({ segments: [], go: () => undefined });

const segmentsOf = (pathname: string): string[] =>
  pathname.startsWith(BASE)
    ? pathname
        .slice(BASE.length)
        .split('/')
        .filter(Boolean)
        .map((s) => decodeURIComponent(s))
    : [];

/**
 * The current address, following the browser's back and forward buttons; navigation pushes a history
 * entry without reloading the page (which would forget the credential held in memory).
 */
export function RouterProvider({ children }: { children: ReactNode }) {
  const [segments, setSegments] = useState(() => segmentsOf(window.location.pathname));
  useEffect(() => {
    const onPop = () => setSegments(segmentsOf(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (path: string) => {
    window.history.pushState(null, '', BASE + path);
    setSegments(segmentsOf(BASE + path));
    window.scrollTo(0, 0);
  };
  return <RouteContext.Provider value={{ segments, go }}>{children}</RouteContext.Provider>;
}

/** The current address and the way to change it. */
export const useRoute = (): Route => useContext(RouteContext);

/**
 * A link to a dashboard address (`to` relative to /dashboard/, segments encoded by the caller with
 * encodeURIComponent). A plain click navigates in place; a modified click (new tab, new window) is
 * left to the browser, which loads the app there (and asks to sign in: the credential stays here).
 */
export function Link({
  to,
  children,
  ...rest
}: {
  to: string;
  children: ReactNode;
  className?: string;
  title?: string;
  'aria-current'?: 'page';
}) {
  const { go } = useRoute();
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    go(to);
  };
  return (
    <a href={BASE + to} onClick={follow} {...rest}>
      {children}
    </a>
  );
}
