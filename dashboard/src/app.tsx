import { useEffect, useState, type ReactNode } from 'react';
import type { Session } from './api.ts';
import { Analytics } from './analytics.tsx';
import { ApiKeys } from './api-keys.tsx';
import { Audit } from './audit.tsx';
import { Members } from './members.tsx';
import { Playground } from './playground.tsx';
import { Link, RouterProvider, useRoute } from './router.tsx';
import { Policies } from './policies.tsx';
import { Scans } from './scans.tsx';
import { SignIn } from './sign-in.tsx';
import { Webhooks } from './webhooks.tsx';

/** A page of the dashboard: its path under /dashboard/, its name in the navigation, what it shows. */
interface Page {
  path: string;
  title: string;
  render: (session: Session) => ReactNode;
}

/**
 * The pages, in navigation order; the first is the home page. A page reads the rest of the address
 * (`scans/scan_123`: a scan's detail) with useRoute.
 */
const PAGES: readonly Page[] = [
  { path: 'playground', title: 'Playground', render: ({ client }) => <Playground client={client} /> },
  { path: 'scans', title: 'Scans', render: (session) => <Scans {...session} /> },
  { path: 'policies', title: 'Policies', render: (session) => <Policies {...session} /> },
  { path: 'webhooks', title: 'Webhooks', render: (session) => <Webhooks {...session} /> },
  { path: 'api-keys', title: 'API keys', render: (session) => <ApiKeys {...session} /> },
  { path: 'audit', title: 'Audit', render: (session) => <Audit {...session} /> },
  { path: 'analytics', title: 'Analytics', render: (session) => <Analytics {...session} /> },
  { path: 'members', title: 'Members', render: (session) => <Members {...session} /> },
];

/** The page the address names (the home page for `/dashboard` and for any path it does not know). */
const pageAt = (segments: string[]): Page => PAGES.find((p) => p.path === segments[0]) ?? PAGES[0]!;

/**
 * The dashboard: the sign-in screen until a credential is accepted, then the navigation and the
 * current page. The session (the client holding the credential) lives in this component's state only:
 * signing out, or leaving the page, forgets it.
 */
export function App() {
  return (
    <RouterProvider>
      <Dashboard />
    </RouterProvider>
  );
}

function Dashboard() {
  const [session, setSession] = useState<Session | null>(null);
  const { segments } = useRoute();
  const page = pageAt(segments);
  useEffect(() => {
    document.title = session ? `${page.title} · Content Firewall` : 'Sign in · Content Firewall';
  }, [session, page]);
  if (!session) return <SignIn onSignedIn={setSession} />;
  return (
    <div className="shell">
      <header>
        <span className="brand">Content Firewall</span>
        <Navigation current={page} />
        <Identity session={session} onSignOut={() => setSession(null)} />
      </header>
      <main key={page.path}>{page.render(session)}</main>
    </div>
  );
}

/** Links to every page. */
function Navigation({ current }: { current: Page }) {
  return (
    <nav aria-label="Pages">
      {PAGES.map((page) => (
        <Link key={page.path} to={page.path} aria-current={page === current ? 'page' : undefined}>
          {page.title}
        </Link>
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
