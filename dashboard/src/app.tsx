import { useEffect, useState, type ReactNode } from 'react';
import { signInWith, type Scope, type Session } from './api.ts';
import { Analytics } from './analytics.tsx';
import { ApiKeys } from './api-keys.tsx';
import { Audit } from './audit.tsx';
import { InviteAccept } from './invite-accept.tsx';
import { Members } from './members.tsx';
import { Playground } from './playground.tsx';
import { Link, RouterProvider, useRoute } from './router.tsx';
import { Policies } from './policies.tsx';
import { Scans } from './scans.tsx';
import { forgetCredential, keptCredential } from './session-store.ts';
import { SignIn } from './sign-in.tsx';
import { Webhooks } from './webhooks.tsx';

/**
 * A page of the dashboard: its path under /dashboard/, its name in the navigation, the scope its API
 * calls need (`admin` holds every scope), what it shows.
 */
interface Page {
  path: string;
  title: string;
  scope: Scope;
  render: (session: Session) => ReactNode;
}

/**
 * The pages, in navigation order; the first is the home page. A page reads the rest of the address
 * (`scans/scan_123`: a scan's detail) with useRoute.
 */
const PAGES: readonly Page[] = [
  {
    path: 'playground',
    scope: 'scans:write',
    title: 'Playground',
    render: ({ client }) => <Playground client={client} />,
  },
  { path: 'scans', scope: 'scans:read', title: 'Scans', render: (session) => <Scans {...session} /> },
  { path: 'policies', scope: 'policies:read', title: 'Policies', render: (session) => <Policies {...session} /> },
  { path: 'webhooks', scope: 'webhooks:read', title: 'Webhooks', render: (session) => <Webhooks {...session} /> },
  { path: 'api-keys', scope: 'api_keys:read', title: 'API keys', render: (session) => <ApiKeys {...session} /> },
  { path: 'audit', scope: 'audit:read', title: 'Audit', render: (session) => <Audit {...session} /> },
  { path: 'analytics', scope: 'analytics:read', title: 'Analytics', render: (session) => <Analytics {...session} /> },
  { path: 'members', scope: 'admin', title: 'Members', render: (session) => <Members {...session} /> },
];

/** The page the address names (the home page for `/dashboard` and for any path it does not know). */
const pageAt = (segments: string[]): Page => PAGES.find((p) => p.path === segments[0]) ?? PAGES[0]!;

/** Whether the signed-in key or role holds what `page` needs, as the API checks it (lib/scopes.ts). */
const canOpen = (page: Page, { principal }: Session): boolean =>
  principal.scopes.includes('admin') || principal.scopes.includes(page.scope);

/** Where an invite's link lands (`/dashboard/invites/accept#token=…`): open without signing in first. */
const isInviteAccept = (segments: string[]): boolean => segments[0] === 'invites' && segments[1] === 'accept';

/**
 * The dashboard: the sign-in screen until a credential is accepted, then the navigation and the
 * current page. The session (the client holding the credential) lives in this component's state —
 * and in this tab's sessionStorage when the person chose to be kept signed in (session-store.ts),
 * which a reload then restores. Signing out forgets both. An invite's link opens its accept page.
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
  // A credential kept for this tab is checked again (GET /v1/me) before the dashboard opens.
  const [restoring, setRestoring] = useState(() => keptCredential() !== null);
  const { segments } = useRoute();
  const page = pageAt(segments);
  const inviting = isInviteAccept(segments);
  useEffect(() => {
    const kept = keptCredential();
    if (!kept) return;
    let live = true;
    signInWith(kept)
      .then(
        (s) => live && setSession(s),
        () => forgetCredential(), // expired, revoked or refused: sign in again
      )
      .finally(() => live && setRestoring(false));
    return () => {
      live = false;
    };
  }, []);
  useEffect(() => {
    document.title = inviting
      ? 'Accept an invite · Content Firewall'
      : session
        ? `${page.title} · Content Firewall`
        : 'Sign in · Content Firewall';
  }, [session, page, inviting]);
  if (inviting) return <InviteAccept />;
  if (!session) return restoring ? <p className="restoring">Signing in again…</p> : <SignIn onSignedIn={setSession} />;
  const signOut = () => {
    forgetCredential();
    setSession(null);
  };
  return (
    <div className="shell">
      <header>
        <span className="brand">Content Firewall</span>
        <Navigation current={page} session={session} />
        <Identity session={session} onSignOut={signOut} />
      </header>
      <main key={page.path}>{canOpen(page, session) ? page.render(session) : <NoAccess page={page} />}</main>
    </div>
  );
}

/** Links to every page; one the credential's scopes cannot open is marked, and says which scope it needs. */
function Navigation({ current, session }: { current: Page; session: Session }) {
  return (
    <nav aria-label="Pages">
      {PAGES.map((page) => {
        const open = canOpen(page, session);
        return (
          <Link
            key={page.path}
            to={page.path}
            aria-current={page === current ? 'page' : undefined}
            className={open ? undefined : 'no-access'}
            title={open ? undefined : `Needs the ${page.scope} scope`}
          >
            {page.title}
            {!open && <span className="visually-hidden"> (needs the {page.scope} scope)</span>}
          </Link>
        );
      })}
    </nav>
  );
}

/** In place of a page the credential's scopes cannot open: which scope it needs, rather than the API's 403. */
function NoAccess({ page }: { page: Page }) {
  return (
    <section aria-labelledby="no-access-title" className="no-access-page">
      <h2 id="no-access-title">{page.title}</h2>
      <p className="notice" data-testid="no-access">
        This page needs the <code>{page.scope}</code> scope, which this credential does not hold. Sign in with a key (or
        a role) that has it.
      </p>
    </section>
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
