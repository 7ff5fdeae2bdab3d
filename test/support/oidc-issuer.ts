/**
 * A real OIDC provider (`oidc-provider`) on loopback standing in for a SaaS identity provider: it signs
 * session tokens (JWT access tokens for our audience, client_credentials grant with a resource
 * indicator; the claims are set from its membership store by the JWT customizer) and serves the
 * management API of docs/identity.md under /manage, where organizations and memberships live. Its
 * management calls need a client-credentials token of the `manager` client, checked against its
 * own keys. A person "re-authenticates" by minting again: the new token carries what the store holds.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
// @ts-expect-error -- oidc-provider ships no type declarations; the one member used is typed below.
import OidcProviderModule from 'oidc-provider';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Payload = Record<string, unknown>;
const Provider = OidcProviderModule as new (issuer: string, config: Payload) => { callback(): Handler };

export const SSO_AUDIENCE = 'https://firewall.test/v1';
const DASHBOARD = { id: 'dashboard', secret: 'a-dashboard-secret-long-enough-for-the-provider' };
const MANAGER = { id: 'manager', secret: 'a-manager-secret-long-enough-for-the-provider' };
const MANAGEMENT_AUDIENCE = 'https://idp.test/manage';

export type Role = 'owner' | 'admin' | 'member';

export interface IssuerOrg {
  id: string;
  display_name: string;
  members: Map<string, { role: Role; email: string | null }>;
}

export interface MintOptions {
  email?: string | null;
  /** Which of the subject's organizations the token names (default: its first); null: none. */
  orgId?: string | null;
  /** Claims set on the signed payload as given (null deletes one): for tokens the store cannot describe. */
  set?: Record<string, string | number | boolean | null>;
}

export interface TestIssuer {
  url: string;
  /** The management API base (IDP_MANAGEMENT_URL). */
  managementUrl: string;
  orgs: Map<string, IssuerOrg>;
  /** Every management call, `METHOD path`. */
  calls: string[];
  /** While set, every management call answers 503 (tokens are still minted). */
  managementDown: boolean;
  /** A session token for `subject` carrying what the membership store holds now. */
  mint(subject: string, o?: MintOptions): Promise<string>;
  /** The environment an app needs to trust this issuer and use its management API (SaaS mode). */
  env(): Record<string, string>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Payload> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Payload) : {};
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

export async function startIssuer(): Promise<TestIssuer> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'ES256', use: 'sig' };
  const { d: _d, ...publicJwk } = jwk;
  const keys = createLocalJWKSet({ keys: [publicJwk] });
  let pending: Payload = {};
  let queue: Promise<unknown> = Promise.resolve();

  const server = createServer((req, res) => {
    if (req.url?.startsWith('/manage/')) return void manage(req, res).catch(() => send(res, 500));
    provider(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const client = (c: { id: string; secret: string }) => ({
    client_id: c.id,
    client_secret: c.secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    id_token_signed_response_alg: 'ES256',
  });
  const provider: Handler = new Provider(url, {
    clients: [client(DASHBOARD), client(MANAGER)],
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx: { oidc: { client?: { clientId: string } } }) =>
          ctx.oidc.client?.clientId === MANAGER.id ? MANAGEMENT_AUDIENCE : SSO_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'session manage',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    formats: {
      customizers: {
        jwt: (_ctx: unknown, token: { clientId?: string }, jwt: { payload: Payload }) => {
          if (token.clientId !== DASHBOARD.id) return;
          for (const [claim, value] of Object.entries(pending)) {
            if (value === null) delete jwt.payload[claim];
            else jwt.payload[claim] = value;
          }
        },
      },
    },
  }).callback();

  async function token(c: { id: string; secret: string }, scope: string): Promise<string> {
    const response = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`token endpoint answered ${response.status} ${JSON.stringify(body)}`);
    return body.access_token;
  }

  async function manage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').slice('/manage'.length);
    issuer.calls.push(`${req.method} ${path}`);
    if (issuer.managementDown) return send(res, 503);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    try {
      const { payload } = await jwtVerify(bearer ?? '', keys, { issuer: url, audience: MANAGEMENT_AUDIENCE });
      if (payload.client_id !== MANAGER.id) return send(res, 403);
    } catch {
      return send(res, 401);
    }
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method === 'POST' && parts.length === 1 && parts[0] === 'organizations') {
      const body = await readJson(req);
      const owner = body.owner as { subject: string; email: string | null };
      const org: IssuerOrg = {
        id: `idp-org-${randomUUID()}`,
        display_name: String(body.display_name),
        members: new Map(),
      };
      org.members.set(owner.subject, { role: 'owner', email: owner.email });
      issuer.orgs.set(org.id, org);
      return send(res, 201, { id: org.id });
    }
    const org = parts[0] === 'organizations' ? issuer.orgs.get(parts[1] ?? '') : undefined;
    if (!org) return send(res, 404);
    if (req.method === 'DELETE' && parts.length === 2) {
      issuer.orgs.delete(org.id);
      return send(res, 204);
    }
    if (parts[2] === 'members' && parts[3]) {
      if (req.method === 'PUT') {
        const body = await readJson(req);
        const was = org.members.get(parts[3]);
        org.members.set(parts[3], {
          role: (body.role as Role | undefined) ?? was?.role ?? 'member',
          email: (body.email as string | null | undefined) ?? was?.email ?? null,
        });
        return send(res, was ? 200 : 201, {});
      }
      if (req.method === 'DELETE') return send(res, org.members.delete(parts[3]) ? 204 : 404);
    }
    send(res, 404);
  }

  const issuer: TestIssuer = {
    url,
    managementUrl: `${url}/manage`,
    orgs: new Map(),
    calls: [],
    managementDown: false,
    mint(subject, o = {}) {
      const run = async () => {
        const first = [...issuer.orgs.values()].find((org) => org.members.has(subject));
        const org = o.orgId === null ? undefined : o.orgId ? issuer.orgs.get(o.orgId) : first;
        const member = org?.members.get(subject);
        const email = o.email === undefined ? (member?.email ?? `${subject}@example.com`) : o.email;
        pending = {
          sub: subject,
          email,
          org_id: member ? org!.id : (o.orgId ?? null),
          org_name: member ? org!.display_name : null,
          role: member?.role ?? null,
          ...o.set,
        };
        return token(DASHBOARD, 'session');
      };
      const minted = queue.then(run, run);
      queue = minted.catch(() => undefined);
      return minted;
    },
    env: () => ({
      DEPLOYMENT_MODE: 'saas',
      METRICS_TOKEN: 'metrics-token-for-the-tests',
      OIDC_ISSUER: url,
      OIDC_AUDIENCE: SSO_AUDIENCE,
      IDP_MANAGEMENT_URL: `${url}/manage`,
      IDP_CLIENT_ID: MANAGER.id,
      IDP_CLIENT_SECRET: MANAGER.secret,
      IDP_SCOPE: 'manage',
      OIDC_FETCH_TIMEOUT_MS: '2000',
    }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return issuer;
}
