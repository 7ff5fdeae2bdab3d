/**
 * What the CLI's API commands (`scan`, `policies`, `redteam`) add to the API client (client/): the
 * deployment and key from flags or CONTENT_FIREWALL_URL / CONTENT_FIREWALL_API_KEY, a client for
 * them, error answers named by the call that got them, and a deployment that cannot be reached said
 * plainly. Retries on 429/503 and Idempotency-Keys are the client's.
 */
import {
  ContentFirewallError,
  createClient,
  type ArgsOf,
  type ContentFirewallClient,
  type Operation,
  type OperationKey,
  type RequestOptions,
} from '../client/index.ts';
import { UsageError, type Values } from './args.ts';

/** A deployment to call: its base URL and an API key. */
export interface ApiTarget {
  target: string;
  key: string;
}

/** An error answer of the deployment, named by the call that got it (`POST /v1/scans: 401 auth.…`). */
export class ApiProblem extends Error {
  constructor(
    readonly what: string,
    readonly error: ContentFirewallError,
  ) {
    super(`${what}: ${error.status} ${error.code}${error.detail ? `: ${error.detail}` : ''}`, { cause: error });
  }
}

/** The deployment cannot be reached (refused, DNS, TLS): a TypeError, as fetch's own. */
export class ApiUnreachable extends TypeError {}

/** The flags naming the deployment and the key (else CONTENT_FIREWALL_URL / CONTENT_FIREWALL_API_KEY). */
export const TARGET_FLAGS = { target: { type: 'string' }, key: { type: 'string' } } as const;

/** The flags (or, when absent, environment variables) naming the deployment and the key. */
export function targetOf(values: Values, env: NodeJS.ProcessEnv = process.env): ApiTarget {
  const target = (typeof values.target === 'string' ? values.target : env.CONTENT_FIREWALL_URL) ?? '';
  const key = (typeof values.key === 'string' ? values.key : env.CONTENT_FIREWALL_API_KEY) ?? '';
  if (!target) throw new UsageError('--target (or CONTENT_FIREWALL_URL) is required');
  if (!/^https?:\/\//.test(target)) throw new UsageError('--target must be an http(s) URL');
  if (!key) throw new UsageError('--key (or CONTENT_FIREWALL_API_KEY) is required');
  return { target, key };
}

/** The global fetch, with a failure to connect thrown as ApiUnreachable naming `base` and the cause. */
function reaching(base: string): typeof fetch {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (err) {
      if (init?.signal?.aborted) throw err;
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
      throw new ApiUnreachable(`cannot reach ${base}: ${cause}`, { cause: err });
    }
  };
}

/**
 * The API client of the deployment `t` with its default retries: at most 3 after a 429 or a 503
 * (waiting what Retry-After says, up to 30 s) or a network error on a repeatable request.
 */
export function clientOf(t: ApiTarget): ContentFirewallClient {
  const baseUrl = t.target.replace(/\/+$/, '');
  return createClient({ baseUrl, apiKey: t.key, fetch: reaching(baseUrl) });
}

/** `'<METHOD> <path>'` of a call of `key` with `args`: the template's parameters filled in from them. */
function callName(key: OperationKey, args: readonly unknown[]): string {
  let i = 0;
  return key.replace(/\{[^}]+\}/g, () => String(args[i++]));
}

/**
 * Calls the client's method `op` with `args`.
 * @throws ApiProblem naming the call for an error answer; ApiUnreachable when the deployment cannot be reached.
 */
export async function call<K extends OperationKey>(op: Operation<K>, ...args: ArgsOf<K, RequestOptions>) {
  try {
    return await op(...args);
  } catch (err) {
    if (err instanceof ContentFirewallError) throw new ApiProblem(callName(op.operation, args), err);
    throw err;
  }
}

/** A problem for the terminal: the message, then each `errors[]` item, then the request id. */
export function describeProblem(p: ApiProblem): string {
  return [
    p.message,
    ...p.error.errors.map((e) => `  - ${e.path || '(body)'}: ${e.message}`),
    ...(p.error.requestId ? [`(request id ${p.error.requestId})`] : []),
  ].join('\n');
}
