import { useEffect, useState } from 'react';
import { clientFor, ContentFirewallError, type components } from './api.ts';
import { ProblemView } from './problem-view.tsx';
import { Link } from './router.tsx';
import { ssoAccessToken } from './sso.ts';
import { useSsoConfig } from './use-sso-config.ts';
import './sso.css';

/** The accept answer: who joined which organization, as what. */
type Accepted = components['schemas']['AcceptedInvite'];

/** An invite token: 32 random bytes in base64url (docs/identity.md). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** What each refusal of `POST /v1/invites/{token}:accept` means to the invitee, and what to do. */
const ACCEPT_PROBLEMS: Record<string, string> = {
  'invites.not_found':
    'This invite cannot be used: it was revoked, already accepted, or the link is incomplete. Ask the organization for a new invite.',
  'invites.expired': 'This invite has expired. Ask an admin of the organization to invite you again.',
  'invites.email_mismatch':
    'This invite was sent to another email address than the one you signed in with. Sign in with SSO as the invited address.',
  'invites.principal_email_unavailable':
    'Your identity provider gave no verified email address, so the invite cannot be matched to you. Verify your email there, then try again.',
  'invites.already_member': 'You already belong to this organization: sign in to open it.',
  'invites.upstream_failure': 'The identity provider could not add you; nothing was changed. Try again in a moment.',
};

/** The token in this page's fragment (`#token=…`), which never reaches the server; null without one. */
function tokenInAddress(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('token');
}

/**
 * The page an invite's link opens, `/dashboard/invites/accept#token=…`: sign in with SSO as the
 * invited email, then `POST /v1/invites/{token}:accept` with that session. The token is read from the
 * fragment (never sent to the server as part of an address) and then removed from the address bar
 * and history. Each refusal says what it means; a deployment without SSO says why the invite cannot
 * be accepted here. Accepting does not sign in: the session's token names no organization yet, so the
 * person signs in again to open it.
 */
export function InviteAccept() {
  const [token] = useState(tokenInAddress);
  const config = useSsoConfig();
  const sso = config.sso;
  const [acceptError, setError] = useState<unknown>(null);
  const error = config.error ?? acceptError;
  const [busy, setBusy] = useState(false);
  const [accepted, setAccepted] = useState<Accepted | null>(null);

  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);

  async function accept() {
    if (!sso || !token) return;
    setBusy(true);
    setError(null);
    try {
      const client = clientFor({ kind: 'token', value: await ssoAccessToken(sso) });
      setAccepted(await client.invites.accept(token));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in invite-accept">
      <h1>Accept an invite</h1>
      {token === null || !TOKEN_SHAPE.test(token) ? (
        <p className="notice" data-testid="invite-note">
          This address carries no invite token. Open the link of your invite exactly as you received it.
        </p>
      ) : accepted ? (
        <div className="notice" data-testid="invite-accepted">
          <p>
            You joined <strong>{accepted.organization.display_name}</strong> as {accepted.role}.
          </p>
          <p>
            <Link to="">Sign in</Link> with SSO again to open it: your new session names the organization.
          </p>
        </div>
      ) : sso === null ? (
        <p className="notice" data-testid="invite-note">
          This deployment has no SSO sign-in, so an invite cannot be accepted here: accepting needs you signed in with
          SSO as the invited email address. Ask the organization&apos;s admin or the operator (docs/dashboard.md,
          &quot;Signing in with SSO&quot;).
        </p>
      ) : (
        sso && (
          <section className="sso" aria-label="Single sign-on">
            <p>Sign in with SSO as the email address the invite was sent to; you then join its organization.</p>
            <button type="button" className="sso-button" onClick={() => void accept()} disabled={busy}>
              {busy ? 'Accepting…' : 'Sign in with SSO and accept'}
            </button>
          </section>
        )
      )}
      {error !== null && <AcceptProblem error={error} />}
    </main>
  );
}

/** A refusal in words (when the API gave one of accept's codes), then the problem itself. */
function AcceptProblem({ error }: { error: unknown }) {
  const meaning = error instanceof ContentFirewallError ? ACCEPT_PROBLEMS[error.code] : undefined;
  return (
    <>
      {meaning && (
        <p className="notice" data-testid="invite-problem">
          {meaning}
        </p>
      )}
      {error instanceof ContentFirewallError ? (
        <ProblemView error={error} />
      ) : (
        <div className="problem" role="alert" data-testid="sso-error">
          <strong>Single sign-on failed</strong>
          <p>{error instanceof Error ? error.message : String(error)}</p>
        </div>
      )}
    </>
  );
}
