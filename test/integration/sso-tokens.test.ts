/**
 * SSO session JWT verification against a real OIDC provider (`oidc-provider`) on loopback: it mints
 * JWT access tokens for our audience by the client_credentials grant with a resource indicator, with
 * `org_id`, `role` and `email` added by `extraTokenClaims`. Hand-signed tokens only for refusals.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
// @ts-expect-error -- oidc-provider ships no type declarations; the one member used is typed below.
import OidcProviderModule from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { SCOPES } from '../../lib/scopes.ts';
import {
  createSsoVerifier,
  looksLikeJwt,
  ROLE_SCOPES,
  SsoTokenError,
  type SsoTokenFailure,
  type SsoVerifierOptions,
} from '../../services/sso-tokens.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Payload = Record<string, unknown>;
const Provider = OidcProviderModule as new (issuer: string, config: Payload) => { callback(): Handler };

const AUDIENCE = 'https://firewall.test/v1';
const CLIENT_ID = 'dashboard';
const CLIENT_SECRET = 'a-client-secret-long-enough-for-the-provider';
const TOKEN_TTL_S = 120;
type Alg = 'ES256' | 'RS256';

interface Minted {
  /** Added by the provider's extraTokenClaims. */
  extra?: Payload;
  /** Set on the signed payload by the provider's JWT customizer (null deletes the claim). */
  set?: Record<string, string | number | null>;
}

interface TestIssuer {
  url: string;
  hits: { discovery: number; jwks: number };
  /** Every request answered 503 while set. */
  down: boolean;
  mint(m?: Minted): Promise<string>;
  /** A new signing key; the old one stays published, as an issuer rotating its keys does. */
  rotate(): Promise<void>;
  privateKey(): CryptoKey;
  kid(): string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

let kids = 0;
async function newKey(alg: Alg): Promise<{ jwk: JWK; privateKey: CryptoKey }> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(privateKey)), kid: `key-${(kids += 1)}`, alg, use: 'sig' } };
}

/** A real OIDC provider behind one loopback server, so it can be swapped (rotation) on the same issuer. */
async function startIssuer(alg: Alg = 'ES256'): Promise<TestIssuer> {
  let current: Handler = (_req, res) => res.writeHead(503).end();
  let pending: Minted = {};
  const keys: { jwk: JWK; privateKey: CryptoKey }[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/.well-known/openid-configuration')) issuer.hits.discovery += 1;
    if (req.url?.startsWith('/jwks')) issuer.hits.jwks += 1;
    if (issuer.down) return void res.writeHead(503).end();
    current(req, res);
  });
  const url = `http://127.0.0.1:${await listen(server)}`;
  const build = (): Handler =>
    new Provider(url, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          id_token_signed_response_alg: alg,
        },
      ],
      jwks: { keys: keys.map((k) => k.jwk) },
      ttl: { ClientCredentials: TOKEN_TTL_S },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: 'session',
            audience: AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: TOKEN_TTL_S,
            jwt: { sign: { alg } },
          }),
        },
      },
      extraTokenClaims: () => pending.extra ?? {},
      formats: {
        customizers: {
          jwt: (_ctx: unknown, _token: unknown, jwt: { payload: Payload }) => {
            for (const [claim, value] of Object.entries(pending.set ?? {})) {
              if (value === null) delete jwt.payload[claim];
              else jwt.payload[claim] = value;
            }
          },
        },
      },
    }).callback();
  const issuer: TestIssuer = {
    url,
    hits: { discovery: 0, jwks: 0 },
    down: false,
    async mint(m = {}) {
      pending = m;
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'session' }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`token endpoint answered ${response.status}`);
      return body.access_token;
    },
    async rotate() {
      keys.unshift(await newKey(alg));
      current = build();
    },
    privateKey: () => keys[0]!.privateKey,
    kid: () => keys[0]!.jwk.kid!,
    close: () => close(server),
  };
  await issuer.rotate();
  return issuer;
}

/** The reason a verification was refused; its message must not repeat the token's payload. */
async function refusal(promise: Promise<unknown>, token?: string): Promise<SsoTokenFailure> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SsoTokenError);
  const payload = token?.split('.')[1];
  if (payload) expect((err as SsoTokenError).message).not.toContain(payload.slice(0, 12));
  return (err as SsoTokenError).reason;
}

/** A hand-signed token naming our issuer and audience, signed with a key of the test's choosing. */
function forge(header: { alg: string; kid?: string }, key: CryptoKey | Uint8Array, claims: Payload = {}) {
  return new SignJWT({ sub: 'user_mallory', org_id: 'org_acme', role: 'owner', ...claims })
    .setProtectedHeader(header)
    .setIssuer(idp.url)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

const ALICE: Minted = {
  extra: { org_id: 'org_acme', role: 'admin', email: 'alice@example.com' },
  set: { sub: 'user_alice' },
};

let idp: TestIssuer;
let other: TestIssuer;
const verifierFor = (i: TestIssuer | string, o: Partial<SsoVerifierOptions> = {}) =>
  createSsoVerifier({ issuer: typeof i === 'string' ? i : i.url, audience: AUDIENCE, fetchTimeoutMs: 2_000, ...o });

/** What `verify` answers while every request to the issuer gets a 503. */
async function whileDown(issuer: TestIssuer, verifying: () => Promise<unknown>, token: string) {
  issuer.down = true;
  try {
    return await refusal(verifying(), token);
  } finally {
    issuer.down = false;
  }
}

beforeAll(async () => {
  idp = await startIssuer('ES256');
  other = await startIssuer('RS256');
});

afterAll(async () => {
  await Promise.all([idp?.close(), other?.close()]);
});

describe('SSO session tokens from a real OIDC provider', () => {
  it('verifies a provider-minted token and reads subject, email, org_id and role', async () => {
    const token = await idp.mint(ALICE);
    expect(looksLikeJwt(token)).toBe(true);
    await expect(verifierFor(idp).verify(token)).resolves.toEqual({
      subject: 'user_alice',
      email: 'alice@example.com',
      orgId: 'org_acme',
      orgName: null,
      role: 'admin',
    });
  });

  it('maps absent, unknown and unverified claims to null', async () => {
    const verifier = verifierFor(idp);
    const orgLess = await idp.mint({ extra: { email: 'new@example.com' }, set: { sub: 'user_new' } });
    const claims = await verifier.verify(orgLess);
    expect(claims).toEqual({ subject: 'user_new', email: 'new@example.com', orgId: null, orgName: null, role: null });
    const odd = await idp.mint({
      extra: { org_id: 'org_acme', role: 'superuser', email: 'bob@example.com', email_verified: false },
    });
    expect(await verifier.verify(odd)).toMatchObject({ subject: CLIENT_ID, email: null, role: null });
    const member = await idp.mint({ extra: { role: 'member', email: 'c@example.com', email_verified: true } });
    expect(await verifier.verify(member)).toMatchObject({ role: 'member', email: 'c@example.com' });
  });

  it('refuses a token for another audience', async () => {
    const token = await idp.mint(ALICE);
    expect(await refusal(verifierFor(idp, { audience: 'https://elsewhere.test' }).verify(token), token)).toBe('claims');
  });

  it('refuses an expired token, after the clock tolerance and not before', async () => {
    const token = await idp.mint(ALICE);
    const clock = new ManualClock(new Date());
    const verifier = verifierFor(idp, { clock, clockToleranceSeconds: 60 });
    clock.advance((TOKEN_TTL_S + 50) * 1000);
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user_alice' });
    clock.advance(15_000);
    expect(await refusal(verifier.verify(token), token)).toBe('expired');

    const past = Math.floor(Date.now() / 1000) - 3_600;
    const minted = await idp.mint({ ...ALICE, set: { sub: 'user_alice', iat: past - 60, exp: past } });
    expect(await refusal(verifierFor(idp).verify(minted), minted)).toBe('expired');
  });

  it('refuses a token not yet valid, issued in the future, or without exp or sub', async () => {
    const verifier = verifierFor(idp, { clockToleranceSeconds: 30 });
    const later = Math.floor(Date.now() / 1000) + 600;
    const cases: Minted['set'][] = [{ nbf: later }, { iat: later }, { exp: null }, { sub: null }];
    for (const set of cases) {
      const token = await idp.mint({ extra: ALICE.extra, set });
      expect(await refusal(verifier.verify(token), token)).toBe('claims');
    }
  });

  it('refuses a tampered signature or payload', async () => {
    const token = await idp.mint(ALICE);
    const verifier = verifierFor(idp);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expect(await refusal(verifier.verify(`${header}.${payload}.${flipped}`), token)).toBe('signature');
    const promoted = b64({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'owner' });
    expect(await refusal(verifier.verify(`${header}.${promoted}.${signature}`), token)).toBe('signature');
  });

  it('refuses none, HS256 and malformed tokens without asking the issuer', async () => {
    const verifier = verifierFor(idp);
    const before = { ...idp.hits };
    const claims = { iss: idp.url, aud: AUDIENCE, sub: 'user_mallory', role: 'owner' };
    const hs256 = await forge({ alg: 'HS256' }, new TextEncoder().encode('a shared secret the attacker chose'));
    expect(await refusal(verifier.verify(hs256), hs256)).toBe('signature');
    const none = `${b64({ alg: 'none' })}.${b64(claims)}.`;
    expect(await refusal(verifier.verify(none))).toBe('malformed');
    expect(await refusal(verifier.verify(`${b64({ alg: 'none' })}.${b64(claims)}.AAAA`))).toBe('signature');
    expect(await refusal(verifier.verify('abc.def.ghi'))).toBe('malformed');
    expect(await refusal(verifier.verify('sk_live_notajwt'))).toBe('malformed');
    expect(idp.hits).toEqual(before);
  });

  it('refuses tokens of a second issuer, and tokens signed with a key the issuer does not publish', async () => {
    const verifier = verifierFor(idp);
    const foreign = await other.mint(ALICE);
    expect(await refusal(verifier.verify(foreign), foreign)).toBe('signature');

    const { privateKey } = await generateKeyPair('ES256');
    const forged = await forge({ alg: 'ES256', kid: idp.kid() }, privateKey);
    expect(await refusal(verifier.verify(forged), forged)).toBe('signature');
    // the other issuer's own key, but naming our issuer
    const crossSigned = await forge({ alg: 'RS256', kid: other.kid() }, other.privateKey());
    expect(await refusal(verifier.verify(crossSigned), crossSigned)).toBe('signature');
  });

  it('discovers once and fetches the keys once for concurrent first tokens', async () => {
    const token = await idp.mint(ALICE);
    const verifier = verifierFor(idp);
    const before = { ...idp.hits };
    await Promise.all(Array.from({ length: 5 }, () => verifier.verify(token)));
    await verifier.verify(token);
    expect(idp.hits).toEqual({ discovery: before.discovery + 1, jwks: before.jwks + 1 });
  });

  it('after a key rotation, refetches the JWKS for the unknown kid; old tokens still verify', async () => {
    const verifier = verifierFor(idp, { jwksCooldownMs: 0 });
    const oldToken = await idp.mint(ALICE);
    await verifier.verify(oldToken);
    const oldKid = idp.kid();
    const fetched = idp.hits.jwks;

    await idp.rotate();
    const newToken = await idp.mint(ALICE);
    expect(JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString()).kid).not.toBe(oldKid);
    await expect(verifier.verify(newToken)).resolves.toMatchObject({ subject: 'user_alice', role: 'admin' });
    expect(idp.hits.jwks).toBe(fetched + 1);
    await expect(verifier.verify(oldToken)).resolves.toMatchObject({ subject: 'user_alice' });
    expect(idp.hits.jwks).toBe(fetched + 1);
  });

  it('within the cooldown, an unknown kid does not make the issuer be asked again', async () => {
    const verifier = verifierFor(idp); // jose's default cooldown: 30 s
    await verifier.verify(await idp.mint(ALICE));
    const fetched = idp.hits.jwks;
    const { privateKey } = await generateKeyPair('ES256');
    for (let i = 0; i < 3; i += 1) {
      const probe = await forge({ alg: 'ES256', kid: `random-${i}` }, privateKey);
      expect(await refusal(verifier.verify(probe), probe)).toBe('signature');
    }
    expect(idp.hits.jwks).toBe(fetched);
  });
});

describe('an unreachable or misconfigured issuer', () => {
  it('is issuer_unreachable when nothing listens', async () => {
    const gone = createServer();
    const port = await listen(gone);
    await close(gone);
    const token = await idp.mint(ALICE);
    const verifier = verifierFor(`http://127.0.0.1:${port}`);
    expect(await refusal(verifier.verify(token), token)).toBe('issuer_unreachable');
  });

  it('is issuer_unreachable when the issuer does not answer in time', async () => {
    const silent = createServer(() => undefined);
    const port = await listen(silent);
    try {
      const token = await idp.mint(ALICE);
      const verifier = verifierFor(`http://127.0.0.1:${port}`, { fetchTimeoutMs: 300 });
      const started = Date.now();
      expect(await refusal(verifier.verify(token), token)).toBe('issuer_unreachable');
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await close(silent);
    }
  });

  it('retries a failed discovery on the next token instead of remembering the failure', async () => {
    const token = await idp.mint(ALICE);
    const verifier = verifierFor(idp);
    expect(await whileDown(idp, () => verifier.verify(token), token)).toBe('issuer_unreachable');
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user_alice' });
  });

  it('is issuer_unreachable when the keys cannot be fetched after discovery', async () => {
    const verifier = verifierFor(idp, { jwksCooldownMs: 0 });
    await verifier.verify(await idp.mint(ALICE));
    await idp.rotate();
    const token = await idp.mint(ALICE);
    expect(await whileDown(idp, () => verifier.verify(token), token)).toBe('issuer_unreachable');
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user_alice' });
  });

  it('refuses a discovery document that names another issuer', async () => {
    const token = await idp.mint(ALICE);
    const verifier = verifierFor(`${idp.url}/`);
    expect(await refusal(verifier.verify(token), token)).toBe('issuer_unreachable');
  });
});

describe('routing and roles', () => {
  it('tells JWTs from API keys', () => {
    expect(looksLikeJwt('sk_live_0123456789abcdefghijklmnopqrstuv')).toBe(false);
    expect(looksLikeJwt('sk_test_0123456789abcdefghijklmnopqrstuv')).toBe(false);
    expect(looksLikeJwt('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
    expect(looksLikeJwt(`a.${'b'.repeat(20_000)}.c`)).toBe(false);
  });

  it('gives owners and admins every scope, members the read scopes and scans:write', () => {
    expect([...ROLE_SCOPES.owner].sort()).toEqual([...SCOPES].sort());
    expect([...ROLE_SCOPES.admin].sort()).toEqual([...SCOPES].sort());
    const reads = SCOPES.filter((s) => s.endsWith(':read'));
    expect([...ROLE_SCOPES.member].sort()).toEqual([...reads, 'scans:write'].sort());
  });
});
