import { CALLBACK_PATH, type CallbackMessage } from './sso.ts';

/**
 * Whether this page is the SSO popup come back from the identity provider: if it has its opener, it
 * hands the issuer's answer (its query: the code and `state`, or an error) to it, on this origin
 * only, and closes. The answer is never kept here.
 * @returns true when this page is the callback (the caller then renders SsoCallback, not the app).
 */
export function handleSsoCallback(): boolean {
  if (window.location.pathname !== CALLBACK_PATH) return false;
  const opener = window.opener as Window | null;
  if (opener) {
    const message: CallbackMessage = { type: 'oidc-callback', search: window.location.search };
    opener.postMessage(message, window.location.origin);
    window.close();
  }
  return true;
}

/** What the callback shows when it has no opener to hand the answer to (or while it closes). */
export function SsoCallback() {
  return (
    <main className="sign-in">
      <h1>Content Firewall</h1>
      <p>Signing in happens in the window that opened this one: this window can be closed.</p>
    </main>
  );
}
