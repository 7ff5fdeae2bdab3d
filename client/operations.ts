/**
 * The client's table of the API's operations, typed from the generated `paths` (client/api-types.ts,
 * `npm run openapi`): one entry per operation of the OpenAPI document, keyed `'<METHOD> <path
 * template>'`. The `satisfies` below makes the compiler hold the table to the document: an operation
 * missing from it, one that no longer exists, or a flag that disagrees with the document (a query, a
 * body, Idempotency-Key) fails the build.
 */
import type { paths } from './api-types.ts';

/** The HTTP methods the API uses. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Path = keyof paths;
type Defined<T> = Exclude<T, undefined>;

/** Every operation of the document, as `'<METHOD> <path template>'`. */
export type OperationKey = {
  [P in Path]: { [M in Method]: [Defined<paths[P][M]>] extends [never] ? never : `${Uppercase<M>} ${P}` }[Method];
}[Path];

type MethodOf<K extends OperationKey> = K extends `${infer M} ${string}` ? Lowercase<M> & Method : never;
type PathOf<K extends OperationKey> = K extends `${string} ${infer P}` ? P & Path : never;

/** The generated operation object of `K` (parameters, requestBody, responses). */
export type OperationOf<K extends OperationKey> = Defined<paths[PathOf<K>][MethodOf<K>]>;

type ParametersOf<O> = O extends { parameters: infer X } ? X : never;
type HeadersOf<O> = ParametersOf<O> extends { header?: infer H } ? Defined<H> : never;
type RequestContentOf<O> = O extends { requestBody?: infer R }
  ? [Defined<R>] extends [never]
    ? never
    : Defined<R>
  : never;

/** The query parameters of `O` (never when it takes none). */
export type QueryOf<O> = ParametersOf<O> extends { query?: infer Q } ? Defined<Q> : never;

/** Bytes for an operation whose body is `application/octet-stream`. */
export type RawBody = Blob | ArrayBuffer | Uint8Array | string;

/** The request body of `O`: its JSON value, `RawBody` for a raw upload, never when it takes none. */
export type BodyOf<O> =
  RequestContentOf<O> extends { content: infer C }
    ? C extends { 'application/json': infer B }
      ? B
      : C extends { 'application/octet-stream': unknown }
        ? RawBody
        : never
    : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 205 | 206;
/** Text media types of a response's content, the event stream aside (`scans.stream` reads that). */
type TextTypesOf<C> = Exclude<Extract<keyof C, `text/${string}`>, 'text/event-stream'>;
/** A response's JSON value; `string` for a text one (`text/csv`, `text/html`); never when it has no body. */
type ContentOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer B }
    ? B
    : [TextTypesOf<C>] extends [never]
      ? never
      : string
  : never;
type Responses<O> = O extends { responses: infer R } ? R : never;

/** What a successful call resolves to: the body of any 2xx answer (`undefined` for a 204). */
export type ResultOf<O> =
  | { [S in keyof Responses<O>]: S extends SuccessStatus ? ContentOf<Responses<O>[S]> : never }[keyof Responses<O>]
  | (204 extends keyof Responses<O> ? undefined : never);

/** `'query'` when `O` takes query parameters (`'required-query'` when some are required), else `'none'`. */
type QueryKind<O> = [QueryOf<O>] extends [never]
  ? 'none'
  : ParametersOf<O> extends { query: object }
    ? 'required-query'
    : 'query';
/** How `O` takes a body. */
type BodyKind<O> = [BodyOf<O>] extends [never] ? 'none' : [BodyOf<O>] extends [RawBody] ? 'raw' : 'json';
type IdempotentOf<O> = 'Idempotency-Key' extends keyof HeadersOf<O> ? true : false;

/** What the client needs at run time to build a request for one operation; checked against the document. */
export interface OperationSpec {
  query: 'none' | 'query' | 'required-query';
  body: 'none' | 'json' | 'raw';
  /** The document lists `Idempotency-Key` for it: the client sends one on every call. */
  idempotent: boolean;
}

type SpecOf<K extends OperationKey> = {
  query: QueryKind<OperationOf<K>>;
  body: BodyKind<OperationOf<K>>;
  idempotent: IdempotentOf<OperationOf<K>>;
};

const get = { query: 'none', body: 'none', idempotent: false } as const;
const list = { query: 'query', body: 'none', idempotent: false } as const;
const report = { query: 'required-query', body: 'none', idempotent: false } as const;
const del = get;
const create = { query: 'none', body: 'json', idempotent: true } as const;
const patch = { query: 'none', body: 'json', idempotent: false } as const;

/** Every operation of the API and how it is called. */
export const OPERATIONS = {
  'GET /healthz': get,
  'GET /health': get,
  'GET /readyz': get,
  'GET /metrics': get,
  'GET /openapi.json': get,
  'GET /v1/me': get,
  'POST /v1/organizations': create,
  'DELETE /v1/organizations/{org_id}': del,
  'POST /v1/invites/{token}:accept': create,
  'POST /v1/invites/{invite_id}:revoke': create,
  'GET /v1/invites': list,
  'POST /v1/invites': create,
  'GET /v1/users': list,
  'PATCH /v1/users/{user_id}': patch,
  'DELETE /v1/users/{user_id}': del,
  'POST /v1/api-keys/{api_key_id}:rotate': create,
  'POST /v1/api-keys/{api_key_id}:revoke': create,
  'GET /v1/api-keys/{api_key_id}': get,
  'GET /v1/api-keys': list,
  'POST /v1/api-keys': create,
  'GET /v1/audit-events': list,
  'POST /v1/policies/{policy_id}:simulate': create,
  'POST /v1/policies/{policy_id}:backtest': create,
  'GET /v1/policies/{policy_id}': get,
  'PUT /v1/policies/{policy_id}': create,
  'DELETE /v1/policies/{policy_id}': del,
  'GET /v1/policies': list,
  'POST /v1/policies': create,
  'POST /v1/scans': create,
  'GET /v1/scans': list,
  'GET /v1/scans/{scan_id}': get,
  'GET /v1/detectors': list,
  'POST /v1/webhooks/{webhook_id}:rotate-secret': create,
  'GET /v1/webhooks/{webhook_id}/deliveries': list,
  'POST /v1/webhook-deliveries/{delivery_id}:redeliver': create,
  'GET /v1/webhooks/{webhook_id}': get,
  'DELETE /v1/webhooks/{webhook_id}': del,
  'GET /v1/webhooks': list,
  'POST /v1/webhooks': create,
  'GET /v1/org/redaction-policy': get,
  'PUT /v1/org/redaction-policy': create,
  'POST /v1/evidence-uploads': create,
  // A presigned upload: public, its query is the signature (the client sends no credential).
  'PUT /v1/evidence-uploads/{storage_key}/content': { query: 'query', body: 'raw', idempotent: false },
  'POST /v1/evidence-uploads/{storage_key}:complete': create,
  'POST /v1/redteam-runs/{run_id}:finalize': create,
  'POST /v1/redteam-runs/{run_id}/findings': create,
  'GET /v1/redteam-runs/{run_id}/findings': list,
  'GET /v1/redteam-runs/{run_id}': get,
  'GET /v1/redteam-runs': list,
  'POST /v1/redteam-runs': create,
  'POST /v1/labeled-events': create,
  'GET /v1/labeled-events': list,
  'GET /v1/labeled-events/{event_id}': get,
  'DELETE /v1/labeled-events/{event_id}': del,
  'GET /v1/analytics/summary': report,
  'GET /v1/analytics/timeseries': report,
  'GET /v1/analytics/surfaces': report,
  'GET /v1/analytics/detectors': report,
  'GET /v1/analytics/latency': report,
  'POST /v1/legacy-analyses': create,
  'GET /v1/legacy-analyses': list,
  'GET /v1/legacy-analyses/{analysis_id}': get,
  'DELETE /v1/legacy-analyses/{analysis_id}': del,
  'GET /v1/legacy-usage': get,
} as const satisfies { [K in OperationKey]: SpecOf<K> };

/** The path parameters of a template, in order (`/v1/api-keys/{api_key_id}:rotate` → `['api_key_id']`). */
export function pathParamNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

type PathArgs<P extends string> = P extends `${string}{${string}}${infer Rest}` ? [string, ...PathArgs<Rest>] : [];
type QueryArgs<O> =
  QueryKind<O> extends 'none' ? [] : QueryKind<O> extends 'required-query' ? [query: QueryOf<O>] : [query?: QueryOf<O>];
type BodyArgs<O> =
  BodyKind<O> extends 'none' ? [] : O extends { requestBody: object } ? [body: BodyOf<O>] : [body?: BodyOf<O>];

/**
 * The arguments of an operation's method: its path parameters in order, then its query (if it takes
 * one), then its body (if it takes one), then the per-call options `Opts`.
 */
export type ArgsOf<K extends OperationKey, Opts> = [
  ...PathArgs<PathOf<K>>,
  ...QueryArgs<OperationOf<K>>,
  ...BodyArgs<OperationOf<K>>,
  options?: Opts,
];
