/**
 * `createClient`: a method for every operation of the API, grouped by resource
 * (`client.apiKeys.rotate(id)`, `client.scans.create(body)`), each typed from the generated OpenAPI
 * types, plus `iterate` over every list, `scans.stream` for a streamed scan, and `request` for any
 * operation by its `'<METHOD> <path>'`.
 */
import type { components } from './api-types.ts';
import {
  OPERATIONS,
  pathParamNames,
  type ArgsOf,
  type Method,
  type OperationKey,
  type OperationOf,
  type OperationSpec,
  type QueryOf,
  type ResultOf,
} from './operations.ts';
import { paginate } from './pagination.ts';
import { scanEvents, type ScanStreamEvent } from './sse.ts';
import { Transport, type ApiRequest, type ClientOptions, type RequestOptions } from './transport.ts';

/** A bound operation: call it with `ArgsOf<K>`; `operation` names what it calls. */
export type Operation<K extends OperationKey> = ((
  ...args: ArgsOf<K, RequestOptions>
) => Promise<ResultOf<OperationOf<K>>>) & {
  readonly operation: K;
};

/** A scan as the API returns it. */
export type Scan = components['schemas']['Scan'];
/** The data of a streamed scan's `event: detector`: one detector's result, as it completes. */
export type ScanDetectorEvent = components['schemas']['ScanEventDetector'];
/** An event of `client.scans.stream`. */
export type ScanEvent = ScanStreamEvent<Scan, ScanDetectorEvent>;

/** The request for `key` called with `args` (path values, then query, then body, then options). */
function requestOf(key: OperationKey, args: readonly unknown[]): ApiRequest {
  const [verb, path] = key.split(' ') as [string, string];
  const spec: OperationSpec = OPERATIONS[key];
  const names = pathParamNames(path);
  let i = names.length;
  const query = spec.query === 'none' ? undefined : (args[i++] as object | undefined);
  const body = spec.body === 'none' ? undefined : args[i++];
  const options = args[i] as RequestOptions | undefined;
  return {
    method: verb.toLowerCase() as Method,
    path,
    pathValues: args.slice(0, names.length) as string[],
    spec,
    query,
    body,
    options,
  };
}

/** The client of one deployment and credential. See docs/client.md. */
export function createClient(options: ClientOptions) {
  const transport = new Transport(options);

  const op = <K extends OperationKey>(key: K): Operation<K> =>
    Object.assign((...args: unknown[]) => transport.json(requestOf(key, args)), { operation: key }) as Operation<K>;

  /** Every item of a list without path parameters. */
  const iterate =
    <K extends OperationKey>(key: K) =>
    (query?: QueryOf<OperationOf<K>>, options?: RequestOptions) =>
      paginate<object, ResultOf<OperationOf<K>>>(
        (q) => transport.json(requestOf(key, [q, options])) as Promise<ResultOf<OperationOf<K>>>,
        query ?? {},
      );

  /** Every item of a list under one parent (`/v1/webhooks/{webhook_id}/deliveries`). */
  const iterateUnder =
    <K extends OperationKey>(key: K) =>
    (parentId: string, query?: QueryOf<OperationOf<K>>, options?: RequestOptions) =>
      paginate<object, ResultOf<OperationOf<K>>>(
        (q) => transport.json(requestOf(key, [parentId, q, options])) as Promise<ResultOf<OperationOf<K>>>,
        query ?? {},
      );

  return {
    /** Any operation by its `'<METHOD> <path template>'`, with the same arguments as its named method. */
    request: <K extends OperationKey>(key: K, ...args: ArgsOf<K, RequestOptions>): Promise<ResultOf<OperationOf<K>>> =>
      transport.json(requestOf(key, args)) as Promise<ResultOf<OperationOf<K>>>,
    /** Every item of any list: `fetchPage` gets `query` plus each next cursor (client/pagination.ts). */
    paginate,
    service: {
      health: op('GET /health'),
      liveness: op('GET /healthz'),
      readiness: op('GET /readyz'),
      /** Prometheus metrics (text), where the deployment exposes them. */
      metrics: op('GET /metrics'),
      openapi: op('GET /openapi.json'),
    },
    me: { get: op('GET /v1/me') },
    organizations: {
      create: op('POST /v1/organizations'),
      delete: op('DELETE /v1/organizations/{org_id}'),
    },
    invites: {
      list: op('GET /v1/invites'),
      iterate: iterate('GET /v1/invites'),
      create: op('POST /v1/invites'),
      revoke: op('POST /v1/invites/{invite_id}:revoke'),
      accept: op('POST /v1/invites/{token}:accept'),
    },
    users: {
      list: op('GET /v1/users'),
      iterate: iterate('GET /v1/users'),
      update: op('PATCH /v1/users/{user_id}'),
      delete: op('DELETE /v1/users/{user_id}'),
    },
    apiKeys: {
      list: op('GET /v1/api-keys'),
      iterate: iterate('GET /v1/api-keys'),
      get: op('GET /v1/api-keys/{api_key_id}'),
      create: op('POST /v1/api-keys'),
      rotate: op('POST /v1/api-keys/{api_key_id}:rotate'),
      revoke: op('POST /v1/api-keys/{api_key_id}:revoke'),
    },
    auditEvents: {
      list: op('GET /v1/audit-events'),
      iterate: iterate('GET /v1/audit-events'),
      /** One page as CSV (`Accept: text/csv`), with the cursor of the next page (null on the last). */
      csv: async (
        query?: QueryOf<OperationOf<'GET /v1/audit-events'>>,
        options?: RequestOptions,
      ): Promise<{ csv: string; nextCursor: string | null }> => {
        const response = await transport.send({
          ...requestOf('GET /v1/audit-events', [query, options]),
          accept: 'text/csv',
        });
        return { csv: await response.text(), nextCursor: response.headers.get('next-cursor') };
      },
    },
    policies: {
      list: op('GET /v1/policies'),
      iterate: iterate('GET /v1/policies'),
      get: op('GET /v1/policies/{policy_id}'),
      create: op('POST /v1/policies'),
      replace: op('PUT /v1/policies/{policy_id}'),
      delete: op('DELETE /v1/policies/{policy_id}'),
      simulate: op('POST /v1/policies/{policy_id}:simulate'),
      backtest: op('POST /v1/policies/{policy_id}:backtest'),
    },
    scans: {
      create: op('POST /v1/scans'),
      /**
       * A scan as server-sent events: `detector` events as detectors finish, then the `decision`
       * (the whole scan). Retried like `create` until the stream starts; never after.
       * @throws ContentFirewallError on an error answer, or an `event: error` during the stream.
       */
      stream: (
        body: ArgsOf<'POST /v1/scans', RequestOptions>[0],
        options?: RequestOptions,
      ): AsyncGenerator<ScanEvent> =>
        (async function* () {
          const request = requestOf('POST /v1/scans', [body, options]);
          yield* scanEvents<Scan, ScanDetectorEvent>(await transport.send({ ...request, accept: 'text/event-stream' }));
        })(),
      list: op('GET /v1/scans'),
      iterate: iterate('GET /v1/scans'),
      get: op('GET /v1/scans/{scan_id}'),
    },
    detectors: {
      list: op('GET /v1/detectors'),
      iterate: iterate('GET /v1/detectors'),
    },
    webhooks: {
      list: op('GET /v1/webhooks'),
      iterate: iterate('GET /v1/webhooks'),
      get: op('GET /v1/webhooks/{webhook_id}'),
      create: op('POST /v1/webhooks'),
      delete: op('DELETE /v1/webhooks/{webhook_id}'),
      rotateSecret: op('POST /v1/webhooks/{webhook_id}:rotate-secret'),
      listDeliveries: op('GET /v1/webhooks/{webhook_id}/deliveries'),
      iterateDeliveries: iterateUnder('GET /v1/webhooks/{webhook_id}/deliveries'),
      redeliver: op('POST /v1/webhook-deliveries/{delivery_id}:redeliver'),
    },
    redactionPolicy: {
      get: op('GET /v1/org/redaction-policy'),
      replace: op('PUT /v1/org/redaction-policy'),
    },
    evidenceUploads: {
      create: op('POST /v1/evidence-uploads'),
      /** Sends the bytes to a presigned upload (`storage_key` and the query of the `upload_url` you were given). */
      putContent: op('PUT /v1/evidence-uploads/{storage_key}/content'),
      complete: op('POST /v1/evidence-uploads/{storage_key}:complete'),
    },
    redteamRuns: {
      list: op('GET /v1/redteam-runs'),
      iterate: iterate('GET /v1/redteam-runs'),
      get: op('GET /v1/redteam-runs/{run_id}'),
      create: op('POST /v1/redteam-runs'),
      finalize: op('POST /v1/redteam-runs/{run_id}:finalize'),
      addFindings: op('POST /v1/redteam-runs/{run_id}/findings'),
      listFindings: op('GET /v1/redteam-runs/{run_id}/findings'),
      iterateFindings: iterateUnder('GET /v1/redteam-runs/{run_id}/findings'),
    },
    labeledEvents: {
      list: op('GET /v1/labeled-events'),
      iterate: iterate('GET /v1/labeled-events'),
      get: op('GET /v1/labeled-events/{event_id}'),
      create: op('POST /v1/labeled-events'),
      delete: op('DELETE /v1/labeled-events/{event_id}'),
    },
    analytics: {
      summary: op('GET /v1/analytics/summary'),
      timeseries: op('GET /v1/analytics/timeseries'),
      surfaces: op('GET /v1/analytics/surfaces'),
      detectors: op('GET /v1/analytics/detectors'),
      latency: op('GET /v1/analytics/latency'),
    },
    legacyAnalyses: {
      list: op('GET /v1/legacy-analyses'),
      iterate: iterate('GET /v1/legacy-analyses'),
      get: op('GET /v1/legacy-analyses/{analysis_id}'),
      create: op('POST /v1/legacy-analyses'),
      delete: op('DELETE /v1/legacy-analyses/{analysis_id}'),
      usage: op('GET /v1/legacy-usage'),
    },
  };
}

/** What `createClient` returns. */
export type ContentFirewallClient = ReturnType<typeof createClient>;

/** Every operation a client's named methods call (a test holds it equal to the document's operations). */
export function boundOperations(client: ContentFirewallClient): OperationKey[] {
  const found: OperationKey[] = [];
  for (const group of Object.values(client)) {
    if (typeof group !== 'object' || group === null) continue;
    for (const method of Object.values(group as Record<string, unknown>)) {
      const key = (method as { operation?: OperationKey }).operation;
      if (typeof method === 'function' && key) found.push(key);
    }
  }
  return found;
}
