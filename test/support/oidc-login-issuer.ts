/**
 * A real OIDC provider (`oidc-provider`) on loopback where a person signs in, for the dashboard's SSO
 * sign-in: the dashboard's **public client** (no secret, authorization code with PKCE), its
 * development login form (any login, any password) and consent screen, CORS for the dashboard's
 * origin on the token endpoint, and JWT access tokens for our audience carrying what its member
 * store says of the signed-in account (the login is the subject). test/support/oidc-issuer.ts is the
 * machine-to-machine counterpart (client credentials, the management API).
 *
 * The client's redirect URI names the app's port, known only once the app listens, while the app
 * needs the issuer's address to start: so the server listens first (its address goes into the app's
 * environment) and the provider itself is made by `register`, once the app's origin is known.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
// @ts-expect-error -- oidc-provider ships no type declarations; the one member used is typed below.
import OidcProviderModule from 'oidc-provider';
import { SSO_AUDIENCE, type IssuerOrg } from './oidc-issuer.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Payload = Record<string, unknown>;
const Provider = OidcProviderModule as new (issuer: string, config: Payload) => { callback(): Handler };

/** The dashboard's client id at this issuer (DASHBOARD_OIDC_CLIENT_ID). */
export const DASHBOARD_CLIENT_ID = 'firewall-dashboard';

/** A running issuer where people sign in, and its member store. */
export interface LoginIssuer {
  url: string;
  /** Who belongs where: a signed-in account's token names its first organization here, and its role. */
  orgs: Map<string, IssuerOrg>;
  /**
   * Makes the provider, with the dashboard served at `appOrigin` as its client: the redirect URI
   * `<appOrigin>/dashboard/oidc-callback`, and CORS for that origin. Until then every request is 503.
   */
  register(appOrigin: string): void;
  /** The environment of an app that trusts this issuer and offers SSO sign-in (SaaS mode, no management API). */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/** Starts the issuer on a free loopback port; `register` the app before signing in. */
export async function startLoginIssuer(): Promise<LoginIssuer> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'login-key', alg: 'ES256', use: 'sig' };
  let provider: Handler | null = null;
  const server = createServer((req, res) => {
    if (provider) return provider(req, res);
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const orgs = new Map<string, IssuerOrg>();

  /** The claims the store gives `subject`: its first organization, its role and email there. */
  function claimsOf(subject: string): Payload {
    const org = [...orgs.values()].find((o) => o.members.has(subject));
    const member = org?.members.get(subject);
    return {
      email: member?.email ?? `${subject}@example.com`,
      org_id: org?.id ?? null,
      org_name: org?.display_name ?? null,
      role: member?.role ?? null,
    };
  }

  function register(appOrigin: string): void {
    provider = new Provider(url, {
      clients: [
        {
          client_id: DASHBOARD_CLIENT_ID,
          application_type: 'web',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
          redirect_uris: [`${appOrigin}/dashboard/oidc-callback`],
          id_token_signed_response_alg: 'ES256',
        },
      ],
      jwks: { keys: [jwk] },
      ttl: { Interaction: 600, Session: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 300, IdToken: 300 },
      pkce: { required: () => true },
      findAccount: (_ctx: unknown, sub: string) => ({
        accountId: sub,
        claims: () => ({ sub, email: claimsOf(sub).email }),
      }),
      clientBasedCORS: (_ctx: unknown, origin: string) => origin === appOrigin,
      features: {
        devInteractions: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => SSO_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => {
            if (resource !== SSO_AUDIENCE) throw new Error(`unknown resource ${resource}`);
            return {
              scope: 'session',
              audience: resource,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'ES256' } },
            };
          },
        },
      },
      formats: {
        customizers: {
          jwt: (_ctx: unknown, token: { accountId?: string }, jwt: { payload: Payload }) => {
            if (!token.accountId) return;
            for (const [claim, value] of Object.entries(claimsOf(token.accountId)))
              if (value !== null) jwt.payload[claim] = value;
          },
        },
      },
    }).callback();
  }

  return {
    url,
    orgs,
    register,
    env: () => ({
      DEPLOYMENT_MODE: 'saas',
      METRICS_TOKEN: 'metrics-token-for-the-tests',
      OIDC_ISSUER: url,
      OIDC_AUDIENCE: SSO_AUDIENCE,
      DASHBOARD_OIDC_CLIENT_ID: DASHBOARD_CLIENT_ID,
      OIDC_FETCH_TIMEOUT_MS: '2000',
    }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
