import { useState } from 'react';
import { ContentFirewallError, signInWithToken, type Session } from './api.ts';
import { ProblemView } from './problem-view.tsx';
import { ssoAccessToken } from './sso.ts';
import { useSsoConfig } from './use-sso-config.ts';
import './sso.css';

/**
 * "Sign in with SSO", when the deployment offers it (`/dashboard/config.json`): the identity
 * provider's sign-in in a popup (sso.ts), then `GET /v1/me` with the access token. Shows nothing
 * without SSO. A failure of the sign-in says what went wrong; the API refusing the token is its problem.
 */
export function SsoSignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const config = useSsoConfig();
  const sso = config.sso ?? null;
  const [signInError, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const error = config.error ?? signInError;

  async function signIn() {
    if (!sso) return;
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signInWithToken(await ssoAccessToken(sso)));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  if (!sso && error === null) return null;
  return (
    <section className="sso" aria-label="Single sign-on">
      {sso && (
        <>
          <button type="button" className="sso-button" onClick={() => void signIn()} disabled={busy}>
            {busy ? 'Signing in with SSO…' : 'Sign in with SSO'}
          </button>
          <p className="hint">Opens your identity provider in a new window.</p>
        </>
      )}
      {error !== null &&
        (error instanceof ContentFirewallError ? (
          <ProblemView error={error} />
        ) : (
          <div className="problem" role="alert" data-testid="sso-error">
            <strong>Single sign-on failed</strong>
            <p>{error instanceof Error ? error.message : String(error)}</p>
          </div>
        ))}
      {sso && <p className="sso-or">or use an API key</p>}
    </section>
  );
}
