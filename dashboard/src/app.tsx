import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import type { Session } from './api.ts';
import { ApiKeys } from './api-keys.tsx';
import { Playground } from './playground.tsx';
import { SignIn } from './sign-in.tsx';

/** A page of the dashboard: its path under /dashboard/, its name in the navigation, what it shows. */
interface Page {
  path: string;
  title: string;
  render: (session: Session) => ReactNode;
}

/** The pages, in navigation order; the first is the home page. */
const PAGES: readonly Page[] = [
  { path: 'playground', title: 'Playground', render: ({ client }) => <Playground client={client} /> },
  {
    path: 'api-keys',
    title: 'API keys',
    render: ({ client, principal }) => <ApiKeys client={client} principal={principal} />,
  },
];

const BASE = '/dashboard/';

/** The page the address names (the home page for `/dashboard` and for any path it does not know). */
function pageAt(pathname: string): Page {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length).replace(/\/+$/, '') : '';
  return PAGES.find((p) => p.path === rest) ?? PAGES[0]!;
}

/** The current page, following the browser's back and forward buttons. */
function useCurrentPage(): [Page, (page: Page) => void] {
  const [page, setPage] = useState(() => pageAt(window.location.pathname));
  useEffect(() => {
    const onPop = () => setPage(pageAt(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const go = (next: Page) => {
    window.history.pushState(null, '', BASE + next.path);
    setPage(next);
  };
  return [page, go];
}

/**
 * The dashboard: the sign-in screen until a key is accepted, then the navigation and the current
 * page. The session (the client holding the key) lives in this component's state only: signing out,
 * or leaving the page, forgets it.
 */
export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [page, go] = useCurrentPage();
  useEffect(() => {
    document.title = session ? `${page.title} · Content Firewall` : 'Sign in · Content Firewall';
  }, [session, page]);
  if (!session) return <SignIn onSignedIn={setSession} />;
  return (
    <div className="shell">
      <header>
        <span className="brand">Content Firewall</span>
        <Navigation current={page} go={go} />
        <Identity session={session} onSignOut={() => setSession(null)} />
      </header>
      <main key={page.path}>{page.render(session)}</main>
    </div>
  );
}

/** Links to every page; a plain click changes page without reloading (which would sign out). */
function Navigation({ current, go }: { current: Page; go: (page: Page) => void }) {
  const follow = (page: Page) => (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    go(page);
  };
  return (
    <nav aria-label="Pages">
      {PAGES.map((page) => (
        <a
          key={page.path}
          href={BASE + page.path}
          aria-current={page === current ? 'page' : undefined}
          onClick={follow(page)}
        >
          {page.title}
        </a>
      ))}
    </nav>
  );
}

/** Who is signed in (organization, key, scopes), and the sign-out button. */
function Identity({ session: { principal }, onSignOut }: { session: Session; onSignOut: () => void }) {
  return (
    <div className="identity">
      <span data-testid="organization">{principal.org_display_name ?? 'no organization'}</span>
      <span className="scopes" data-testid="scopes">
        {principal.scopes.length ? principal.scopes.join(' ') : 'no scopes'}
      </span>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
}
