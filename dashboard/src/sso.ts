/**
 * SSO sign-in: the OAuth 2.0 authorization code flow with PKCE (RFC 7636), run in a popup so that
 * nothing has to survive a page load. The verifier, the `state`, the code and the token live in this
 * module's closures only — never storage, a cookie or this page's address — and the issuer sees this
 * page only through its redirect URI (`/dashboard/oidc-callback`, which hands its query back to the
 * opener and closes: see main.tsx). No refresh token is asked for or kept: when the access token
 * expires, the API answers 401 and the person signs in again.
 */

/** What `GET /dashboard/config.json` says of SSO (api/dashboard.ts): the issuer, our client there, the token audience. */
export interface SsoConfig {
  issuer: string;
  client_id: string;
  audience: string;
  scope: string;
}

/** The path the issuer sends the popup back to, on this origin. */
export const CALLBACK_PATH = '/dashboard/oidc-callback';

/** What the callback page posts to its opener: the query the issuer sent it back with. */
export interface CallbackMessage {
  type: 'oidc-callback';
  search: string;
}

/** A failure of the sign-in itself (not an answer of our API): said to the person as is. */
export class SsoError extends Error {
  override name = 'SsoError';
}

/** The SSO sign-in this deployment offers, or null (API keys only). */
export async function fetchSsoConfig(): Promise<SsoConfig | null> {
  const res = await fetch('/dashboard/config.json', { cache: 'no-store' });
  if (!res.ok) throw new SsoError(`Could not read the dashboard's configuration (HTTP ${res.status}).`);
  return ((await res.json()) as { sso: SsoConfig | null }).sso;
}

/** `bytes` in base64url without padding (RFC 4648 §5), as PKCE and the random parameters use. */
function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** `n` random bytes from the browser's CSPRNG, base64url. */
const random = (n: number) => base64url(crypto.getRandomValues(new Uint8Array(n)));

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The issuer's endpoints, from its discovery document (its `issuer` must be the one configured). */
async function discover(issuer: string): Promise<{ authorization_endpoint: string; token_endpoint: string }> {
  let doc: { issuer?: string; authorization_endpoint?: string; token_endpoint?: string };
  try {
    const res = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    doc = (await res.json()) as typeof doc;
  } catch (err) {
    throw new SsoError(`Could not reach the identity provider at ${issuer} (${(err as Error).message}).`);
  }
  if (doc.issuer !== issuer || !doc.authorization_endpoint || !doc.token_endpoint)
    throw new SsoError(`The identity provider at ${issuer} describes another issuer or lacks its endpoints.`);
  return { authorization_endpoint: doc.authorization_endpoint, token_endpoint: doc.token_endpoint };
}

/** How long the popup may stay open before the sign-in gives up. */
const POPUP_LIMIT_MS = 10 * 60_000;

/**
 * The callback's query, once the popup comes back to this origin: only a message from this origin,
 * from this very popup, counts. Rejects when the popup is closed first or stays open too long.
 */
function awaitCallback(popup: Window): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const finish = (settle: () => void) => {
      window.removeEventListener('message', onMessage);
      clearInterval(watch);
      settle();
    };
    const onMessage = (event: MessageEvent) => {
      const data = event.data as Partial<CallbackMessage> | null;
      if (event.origin !== window.location.origin || event.source !== popup) return;
      if (data?.type !== 'oidc-callback' || typeof data.search !== 'string') return;
      finish(() => resolve(new URLSearchParams(data.search)));
    };
    // The callback posts, then closes: a close seen now may have its message still queued, so wait a moment.
    let closedAt: number | null = null;
    const watch = setInterval(() => {
      if (Date.now() - started > POPUP_LIMIT_MS) {
        popup.close();
        finish(() => reject(new SsoError('The sign-in window was open too long: sign in again.')));
      } else if (popup.closed) {
        closedAt ??= Date.now();
        if (Date.now() - closedAt > 500)
          finish(() => reject(new SsoError('The sign-in window was closed before signing in finished.')));
      }
    }, 250);
    window.addEventListener('message', onMessage);
  });
}

/** The code's exchange at the token endpoint (a public client: the verifier proves it is us). */
async function exchange(tokenEndpoint: string, form: Record<string, string>): Promise<string> {
  let res: Response;
  try {
    res = await fetch(tokenEndpoint, { method: 'POST', body: new URLSearchParams(form) });
  } catch (err) {
    throw new SsoError(`Could not reach the identity provider's token endpoint (${(err as Error).message}).`);
  }
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (!res.ok || !body.access_token)
    throw new SsoError(
      `The identity provider did not issue a token: ${body.error ?? `HTTP ${res.status}`}` +
        (body.error_description ? ` (${body.error_description})` : '') +
        '.',
    );
  return body.access_token;
}

/**
 * Runs the sign-in and answers the access token for our API. Call it from a click: the popup is
 * opened at once, before anything is awaited, so that the browser counts it as the person's doing.
 * @throws SsoError when the popup is blocked or closed, discovery fails, the issuer answers an error,
 * the answer's `state` is not ours, or the token endpoint refuses the code.
 */
export async function ssoAccessToken(sso: SsoConfig): Promise<string> {
  const popup = window.open('', 'content-firewall-sso', 'popup,width=520,height=680');
  if (!popup) throw new SsoError('The sign-in window was blocked: allow pop-ups for this site and try again.');
  try {
    const { authorization_endpoint, token_endpoint } = await discover(sso.issuer);
    const verifier = random(32);
    const state = random(16);
    const redirectUri = `${window.location.origin}${CALLBACK_PATH}`;
    const authorize = new URL(authorization_endpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: sso.client_id,
      redirect_uri: redirectUri,
      scope: sso.scope,
      state,
      nonce: random(16),
      code_challenge: await challengeOf(verifier),
      code_challenge_method: 'S256',
      resource: sso.audience, // RFC 8707
      audience: sso.audience, // Auth0 and its kind
    }))
      authorize.searchParams.set(name, value);
    popup.location.href = authorize.toString();

    const answer = await awaitCallback(popup);
    if (answer.get('state') !== state)
      throw new SsoError('The sign-in answer was not for this request (state mismatch): sign in again.');
    const error = answer.get('error');
    if (error) {
      const description = answer.get('error_description');
      throw new SsoError(
        `The identity provider refused the sign-in: ${error}${description ? ` (${description})` : ''}.`,
      );
    }
    const code = answer.get('code');
    if (!code) throw new SsoError('The identity provider answered without a code.');
    return await exchange(token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: sso.client_id,
      code_verifier: verifier,
    });
  } finally {
    if (!popup.closed) popup.close();
  }
}
