import { useState, type FormEvent } from 'react';
import { signIn, type Session } from './api.ts';
import { ProblemView } from './problem-view.tsx';
import { keepCredential } from './session-store.ts';
import { SsoSignIn } from './sso-sign-in.tsx';

/**
 * The sign-in screen: "Sign in with SSO" where the deployment offers it (sso-sign-in.tsx), and
 * pasting an API key; `GET /v1/me` checks the credential before the dashboard opens. It stays in the
 * page's memory (never a cookie or the URL), and in this tab's sessionStorage only when the person
 * ticks "Keep me signed in in this tab" (session-store.ts says what that costs).
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [keep, setKeep] = useState(false);
  const signedIn = (session: Session) => {
    if (keep) keepCredential(session.credential);
    onSignedIn(session);
  };
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key.trim());
      setKey('');
      signedIn(session);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Content Firewall</h1>
      <div className="keep-signed-in">
        <label className="check">
          <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> Keep me signed in in this
          tab
        </label>
        <p className="hint" id="keep-signed-in-hint">
          {keep
            ? 'The key or SSO token is kept in this tab’s sessionStorage: a reload keeps you signed in, closing the tab or Sign out forgets it. Any script running on the page could read it there: use it on a machine and browser you trust.'
            : 'Off: the key or SSO token is kept in this tab’s memory only, so reloading the page signs you out.'}
        </p>
      </div>
      <SsoSignIn onSignedIn={signedIn} />
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="sk_live_…"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          required
          autoFocus
        />
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error !== null && <ProblemView error={error} />}
    </main>
  );
}
