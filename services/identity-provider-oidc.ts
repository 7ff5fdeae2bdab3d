/**
 * The SaaS identity provider: the session-token issuer's management API (docs/identity.md gives the
 * contract; an adapter in front of Auth0, Keycloak or Zitadel implements it). Calls authenticate with
 * a client-credentials access token from the issuer's token endpoint (found by OIDC discovery),
 * cached until shortly before it expires. Every failure, a timeout included, is an
 * IdentityProviderError; callers write nothing locally when one is thrown.
 */
import type { UserRole } from '../store/users.ts';
import { IdentityProviderError, type IdentityProvider, type ProviderMember } from './identity-provider.ts';

export interface OidcIdentityProviderOptions {
  issuer: string;
  /** Base URL of the management API, e.g. https://idp.example.com/api/v1 */
  managementUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scope requested with the client-credentials grant (none when empty). */
  scope?: string;
  timeoutMs: number;
}

interface CachedToken {
  value: string;
  /** Epoch ms after which a new one is fetched. */
  refreshAt: number;
}

const EARLY_REFRESH_MS = 30_000;

export class OidcIdentityProvider implements IdentityProvider {
  readonly kind = 'oidc';
  private tokenEndpoint: string | null = null;
  private token: CachedToken | null = null;
  private readonly base: string;

  constructor(private readonly o: OidcIdentityProviderOptions) {
    this.base = o.managementUrl.replace(/\/+$/, '');
  }

  async createOrganization(input: { displayName: string; owner: ProviderMember }): Promise<{ externalId: string }> {
    const body = await this.call(
      'POST',
      '/organizations',
      { display_name: input.displayName, owner: input.owner },
      [200, 201],
    );
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id.length === 0 || id.length > 255) {
      throw new IdentityProviderError('the identity provider answered an organization without an id');
    }
    return { externalId: id };
  }

  async deleteOrganization(externalId: string): Promise<void> {
    await this.call('DELETE', `/organizations/${encodeURIComponent(externalId)}`, undefined, [200, 204, 404]);
  }

  async addMember(externalId: string, member: ProviderMember): Promise<void> {
    await this.putMember(externalId, member.subject, { email: member.email, role: member.role });
  }

  async setRole(externalId: string, subject: string, role: UserRole): Promise<void> {
    await this.putMember(externalId, subject, { role });
  }

  async removeMember(externalId: string, subject: string): Promise<void> {
    await this.call('DELETE', this.memberPath(externalId, subject), undefined, [200, 204, 404]);
  }

  private putMember(externalId: string, subject: string, body: Record<string, unknown>): Promise<unknown> {
    return this.call('PUT', this.memberPath(externalId, subject), body, [200, 201, 204]);
  }

  private memberPath(externalId: string, subject: string): string {
    return `/organizations/${encodeURIComponent(externalId)}/members/${encodeURIComponent(subject)}`;
  }

  /** One management call; a 401 refreshes the access token once (it may have been revoked early). */
  private async call(method: string, path: string, body: unknown, ok: number[]): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.accessToken();
      const res = await this.fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 401 && attempt === 0) {
        this.token = null;
        continue;
      }
      if (!ok.includes(res.status)) {
        throw new IdentityProviderError(`the identity provider answered ${res.status} to ${method} ${path}`);
      }
      const text = await this.read(res);
      if (!text) return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new IdentityProviderError(`the identity provider answered ${method} ${path} with invalid JSON`);
      }
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return this.token.value;
    const endpoint = await this.discoverTokenEndpoint();
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.o.scope) form.set('scope', this.o.scope);
    const res = await this.fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(this.o.clientId)}:${encodeURIComponent(this.o.clientSecret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
    });
    const parsed = await this.json(res, 'token endpoint');
    const value = parsed.access_token;
    if (res.status !== 200 || typeof value !== 'string') {
      throw new IdentityProviderError(`the token endpoint answered ${res.status} without an access token`);
    }
    const ttlMs = typeof parsed.expires_in === 'number' ? parsed.expires_in * 1000 : 60_000;
    this.token = { value, refreshAt: Date.now() + Math.max(0, ttlMs - EARLY_REFRESH_MS) };
    return value;
  }

  private async discoverTokenEndpoint(): Promise<string> {
    if (this.tokenEndpoint) return this.tokenEndpoint;
    const url = `${this.o.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const res = await this.fetch(url, { headers: { accept: 'application/json' } });
    const doc = await this.json(res, 'discovery document');
    if (res.status !== 200 || typeof doc.token_endpoint !== 'string') {
      throw new IdentityProviderError(`the issuer's discovery document (${res.status}) names no token endpoint`);
    }
    this.tokenEndpoint = doc.token_endpoint;
    return doc.token_endpoint;
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(this.o.timeoutMs) });
    } catch (err) {
      throw new IdentityProviderError(`the identity provider could not be reached (${(err as Error).name})`, {
        cause: err,
      });
    }
  }

  private async read(res: Response): Promise<string> {
    try {
      return await res.text();
    } catch (err) {
      throw new IdentityProviderError('the identity provider response could not be read', { cause: err });
    }
  }

  private async json(res: Response, what: string): Promise<Record<string, unknown>> {
    const text = await this.read(res);
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // fall through
    }
    throw new IdentityProviderError(`the ${what} answered ${res.status} with no JSON object`);
  }
}
