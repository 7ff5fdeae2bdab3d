/**
 * The dashboard's one way to the API: the published client package (client/), on this page's origin.
 * The types of what it answers come from the client's generated OpenAPI types, and the lists of
 * allowed values below are checked against them by the compiler.
 */
import { createClient, type components, type operations } from '../../client/index.ts';

export { ContentFirewallError } from '../../client/index.ts';
/** The API's schemas and operations (generated from its OpenAPI document): each page derives its types here. */
export type { components, operations } from '../../client/index.ts';

/** A client of this deployment, holding the signed-in credential (in memory only). */
export type Client = ReturnType<typeof createClient>;
/** Who is signed in (`GET /v1/me`). */
export type Principal = components['schemas']['Principal'];
/** A scan's result (`POST /v1/scans`). */
export type Scan = components['schemas']['Scan'];
/** An API key as listed. */
export type ApiKey = components['schemas']['ApiKey'];
/** A key just created: the one answer that carries its secret. */
export type ApiKeyWithSecret = components['schemas']['ApiKeyWithSecret'];
/** What `POST /v1/api-keys` takes. */
export type CreateApiKeyBody = operations['createApiKey']['requestBody']['content']['application/json'];

type ScanBody = operations['createScan']['requestBody']['content']['application/json'];
/** Where scanned content comes from (`surface`). */
export type Surface = ScanBody['surface'];
/** Which models a scan runs (`options.tier`). */
export type Tier = NonNullable<NonNullable<ScanBody['options']>['tier']>;
/** A permission an API key can hold. */
export type Scope = ApiKey['scopes'][number];

/** `list`, typed as all the values of `T`: it stops compiling when the API adds a value the list lacks. */
const every =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : never)): L =>
    list;

/** Every surface, in the order the API documents them. */
export const SURFACES = every<Surface>()([
  'user_message',
  'assistant_output',
  'tool_result',
  'tool_params',
  'document',
  'agent_message',
  'mcp_resource',
  'mcp_tool_description',
]);

/** What a decision did with the content. */
export type Action = Scan['decision']['action'];

/** Every action, the most severe first. */
export const ACTIONS = every<Action>()(['blocked', 'flagged', 'warned', 'allowed']);

/** Every tier: `auto` picks per detector, `fast` never waits for a model, `accurate` runs the models. */
export const TIERS = every<Tier>()(['auto', 'fast', 'accurate']);

/** Every scope a key can be given. */
export const SCOPES = every<Scope>()([
  'scans:read',
  'scans:write',
  'policies:read',
  'policies:write',
  'webhooks:read',
  'webhooks:write',
  'api_keys:read',
  'api_keys:write',
  'audit:read',
  'analytics:read',
  'labeled_events:read',
  'labeled_events:write',
  'labeled_events:delete',
  'redteam:read',
  'redteam:write',
  'mcp:invoke',
  'admin',
]);

/** What a session signed in with: an API key, or an SSO access token. */
export interface Credential {
  kind: 'api_key' | 'token';
  value: string;
}

/** A signed-in session: the client holding the credential, who it is, and the credential itself. */
export interface Session {
  client: Client;
  principal: Principal;
  credential: Credential;
}

/** A client on this page's origin holding `credential`. No retries: a person is waiting, and a failure is shown at once. */
export const clientFor = (credential: Credential): Client =>
  createClient({
    baseUrl: window.location.origin,
    ...(credential.kind === 'api_key' ? { apiKey: credential.value } : { token: credential.value }),
    retries: false,
  });

/**
 * Signs in with `credential`: a client holding it, checked by `GET /v1/me`.
 * @throws ContentFirewallError when the API refuses it (or any other error answer).
 */
export async function signInWith(credential: Credential): Promise<Session> {
  const client = clientFor(credential);
  return { client, principal: await client.me.get(), credential };
}

/**
 * Signs in with an API key.
 * @throws ContentFirewallError when the API refuses the key.
 */
export const signIn = (apiKey: string): Promise<Session> => signInWith({ kind: 'api_key', value: apiKey });

/**
 * Signs in with an SSO access token (the dashboard's sign-in with the identity provider, sso.ts). It
 * expires with no renewal: the API then answers 401, and the person signs in again.
 * @throws ContentFirewallError when the API refuses the token.
 */
export const signInWithToken = (token: string): Promise<Session> => signInWith({ kind: 'token', value: token });
