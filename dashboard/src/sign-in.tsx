import { useState, type FormEvent } from 'react';
import { signIn, type Session } from './api.ts';
import { ProblemView } from './problem-view.tsx';
import { SsoSignIn } from './sso-sign-in.tsx';

/**
 * The sign-in screen: "Sign in with SSO" where the deployment offers it (sso-sign-in.tsx), and
 * pasting an API key. The key goes no further than this component's state and the client made from
 * it (never storage, a cookie or the URL); `GET /v1/me` checks it before the dashboard opens.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signIn(key.trim());
      setKey('');
      onSignedIn(session);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>Content Firewall</h1>
      <SsoSignIn onSignedIn={onSignedIn} />
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
        <p className="hint">Kept in this tab's memory only: reloading the page signs you out.</p>
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error !== null && <ProblemView error={error} />}
    </main>
  );
}
