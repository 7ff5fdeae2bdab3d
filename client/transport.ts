/**
 * One HTTP exchange with the API, as every method of the client makes it: the URL from the path
 * template, the credential, `Idempotency-Key` on the operations that take one (the same key on every
 * attempt of one call), retries (client/retry.ts), and error answers turned into `ContentFirewallError`.
 * Uses only `fetch`, `Headers`, `URL` and `crypto.randomUUID`: Node ≥ 20 and browsers.
 */
import { ContentFirewallError, isProblem } from './errors.ts';
import { pathParamNames, type Method, type OperationSpec } from './operations.ts';
import {
  backoffMs,
  GATEWAY_STATUSES,
  IN_PROGRESS_CODE,
  RETRIED_STATUSES,
  retryAfterMs,
  retryPolicy,
  sleep,
  type RetryOptions,
  type RetryPolicy,
} from './retry.ts';
import { CLIENT_VERSION } from './version.ts';

/** What `createClient` takes. */
export interface ClientOptions {
  /** The deployment's address, e.g. `https://firewall.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** An API key (`sk_live_…`), sent as `Authorization: Bearer`. */
  apiKey?: string | undefined;
  /** Or an SSO session token, sent the same way. */
  token?: string | undefined;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch | undefined;
  /** The retry policy (client/retry.ts); `false` never retries. */
  retries?: RetryOptions | false | undefined;
  /** `User-Agent` (not sent from browsers, which set their own); default `content-firewall-client/<version>`. */
  userAgent?: string | undefined;
  /** Pins a dated API revision (`Service-Api-Version`, YYYY-MM-DD) on every request. */
  apiVersion?: string | undefined;
  /** Headers added to every request. */
  headers?: Record<string, string> | undefined;
}

/** What every method takes as its last, optional argument. */
export interface RequestOptions {
  /** Your own `Idempotency-Key` (for operations that take one); default a random UUID per call. */
  idempotencyKey?: string | undefined;
  /** Cancels the call, a wait between retries included. */
  signal?: AbortSignal | undefined;
  /** Extra headers for this call (`X-Request-Id`, say). */
  headers?: Record<string, string> | undefined;
}

/** One request, before it is sent. */
export interface ApiRequest {
  method: Method;
  /** The path template (`/v1/api-keys/{api_key_id}:rotate`). */
  path: string;
  pathValues: readonly string[];
  spec: OperationSpec;
  query?: object;
  body?: unknown;
  accept?: string;
  options?: RequestOptions;
}

/** Sends requests for one client. */
export class Transport {
  private readonly base: string;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly defaults: Headers;

  constructor(options: ClientOptions) {
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl))
      throw new TypeError('baseUrl must be an http(s) URL');
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.policy = retryPolicy(options.retries);
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.defaults = defaultHeaders(options);
  }

  /** The response of a successful answer (any 2xx), after retries. @throws ContentFirewallError on an error answer. */
  async send(request: ApiRequest): Promise<Response> {
    const url = this.url(request);
    const init = this.init(request);
    const headers = init.headers as Headers;
    const repeatable = request.method === 'get' || request.method === 'delete' || headers.has('Idempotency-Key');
    const signal = request.options?.signal;
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await this.fetchImpl(url, init);
      } catch (err) {
        if (signal?.aborted || !repeatable || retry >= this.policy.maxRetries) throw err;
        await sleep(backoffMs(this.policy, retry), signal);
        continue;
      }
      if (response.ok) return response;
      if (retry >= this.policy.maxRetries) throw await errorOf(response);
      const { answer, retry: again } = await retryDecision(response, repeatable);
      const wait = again ? this.retryWait(answer, retry) : undefined;
      if (wait === undefined) throw await errorOf(answer);
      await answer.body?.cancel().catch(() => undefined);
      await sleep(wait, signal);
    }
  }

  /** The answer's JSON (undefined for an empty one). @throws ContentFirewallError on an error answer. */
  async json(request: ApiRequest): Promise<unknown> {
    const response = await this.send(request);
    const text = await response.text();
    if (text === '') return undefined;
    return isJson(response) ? JSON.parse(text) : text;
  }

  /** The wait before trying a retried answer's request again (its `Retry-After`, else a backoff), or undefined past maxDelayMs. */
  private retryWait(response: Response, retry: number): number | undefined {
    const asked = retryAfterMs(response.headers.get('retry-after'));
    if (asked === undefined) return backoffMs(this.policy, retry);
    return asked <= this.policy.maxDelayMs ? asked : undefined;
  }

  private url(request: ApiRequest): string {
    const names = pathParamNames(request.path);
    let path = request.path;
    names.forEach((name, i) => {
      const value = request.pathValues[i];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    });
    const search = queryString(request.query);
    return `${this.base}${path}${search ? `?${search}` : ''}`;
  }

  private init(request: ApiRequest): RequestInit {
    const headers = new Headers(this.defaults);
    headers.set('Accept', request.accept ?? 'application/json');
    for (const [name, value] of Object.entries(request.options?.headers ?? {})) headers.set(name, value);
    if (request.spec.idempotent && !headers.has('Idempotency-Key'))
      headers.set('Idempotency-Key', request.options?.idempotencyKey ?? randomKey());
    const init: RequestInit = { method: request.method.toUpperCase(), headers };
    if (request.options?.signal) init.signal = request.options.signal;
    if (request.body !== undefined && request.spec.body === 'json') {
      headers.set('Content-Type', 'application/json');
      init.body = JSON.stringify(request.body);
    } else if (request.body !== undefined && request.spec.body === 'raw') {
      if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/octet-stream');
      init.body = request.body as BodyInit;
    }
    return init;
  }
}

function defaultHeaders(options: ClientOptions): Headers {
  const headers = new Headers(options.headers);
  const credential = options.apiKey ?? options.token;
  if (credential !== undefined) {
    if (typeof credential !== 'string' || credential === '')
      throw new TypeError('apiKey/token must be a non-empty string');
    headers.set('Authorization', `Bearer ${credential}`);
  }
  if (options.apiVersion) headers.set('Service-Api-Version', options.apiVersion);
  // A browser sets its own User-Agent; sending one there only adds a header for CORS to allow.
  const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  if (options.userAgent || !inBrowser)
    headers.set('User-Agent', options.userAgent ?? `content-firewall-client/${CLIENT_VERSION}`);
  return headers;
}

/** `a=1&b=x&b=y`: arrays repeat the name, Dates are ISO 8601, undefined and null are left out. */
export function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === undefined || v === null) continue;
      params.append(name, v instanceof Date ? v.toISOString() : String(v));
    }
  }
  return params.toString();
}

/** A fresh Idempotency-Key: a random UUID. */
function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

function isJson(response: Response): boolean {
  return /[/+]json\b/i.test(response.headers.get('content-type') ?? '');
}

/**
 * Whether an error answer is retried (client/retry.ts), with the answer to go on with: a fresh copy
 * when its body had to be read to decide (a 409 problem's code).
 */
async function retryDecision(response: Response, repeatable: boolean): Promise<{ answer: Response; retry: boolean }> {
  const status = response.status;
  if (RETRIED_STATUSES.has(status)) return { answer: response, retry: true };
  const problem = /^application\/problem\+json\b/i.test(response.headers.get('content-type') ?? '');
  // A balancer's own page (HAProxy, nginx): the node went away mid-request. Ours are answers.
  if (GATEWAY_STATUSES.has(status)) return { answer: response, retry: repeatable && !problem };
  if (status !== 409 || !problem) return { answer: response, retry: false };
  const text = await response.text().catch(() => '');
  let code: unknown;
  try {
    code = (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    code = undefined;
  }
  const answer = new Response(text, { status, statusText: response.statusText, headers: response.headers });
  return { answer, retry: code === IN_PROGRESS_CODE };
}

/** The error for an error answer, with its problem document when it is one. */
export async function errorOf(response: Response): Promise<ContentFirewallError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = isJson(response) && text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  return new ContentFirewallError({
    status: response.status,
    statusText: response.statusText,
    problem: isProblem(body) ? body : undefined,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
  });
}
