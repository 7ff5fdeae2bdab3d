/**
 * What the reliability suites share: the app they run against (a real app on a database of its own,
 * webhooks allowed only to a local HTTPS receiver), each organization's fixture resources (the ids a
 * valid request names, and fresh ones for routes that use theirs up), the valid request of a route
 * (from the table in routes.ts), and the invariants every response must keep.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../lib/ids.ts';
import { provisionUser } from '../../store/users.ts';
import {
  buildOrg,
  call,
  isolatedDatabase,
  startTestApp,
  type Reply,
  type TestApp,
  type TestOrg,
} from '../support/harness.ts';
import { startReceiver, TEST_CA_FILE, type Receiver } from '../support/receiver.ts';
import {
  fillPath,
  PARAM_RESOURCE,
  PARAM_TOKEN,
  policyBody,
  scanBody,
  withReceiver,
  type Answer,
  type IdResource,
  type Ids,
  type RouteEntry,
  type Tokens,
} from './routes.ts';

export interface ReliabilityApp {
  app: TestApp;
  /** The local HTTPS receiver every fixture webhook points at. */
  receiver: Receiver;
  /** Sends every due webhook delivery and waits for the outcomes (no-op with deliveries off). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const SCAN_EVENTS = ['scan.blocked', 'scan.flagged', 'scan.warned', 'scan.allowed'];

/**
 * A real app on a database of its own (its webhook pump would otherwise claim other test files'
 * deliveries), with /metrics mounted (so every route of the table exists) and rate limits out of the
 * way. Webhooks may target only 127.0.0.1 (the receiver, trusted through the test CA); every host
 * name fails to resolve without asking DNS, so nothing leaves the machine. `deliveries: false` stops
 * the pump, for suites that register URLs they did not choose (the fuzz).
 */
export async function startReliabilityApp(opts: {
  deliveries: boolean;
  env?: Record<string, string>;
}): Promise<ReliabilityApp> {
  const receiver = await startReceiver();
  const noDns = async (host: string): Promise<never> =>
    Promise.reject(new Error(`ENOTFOUND ${host} (the reliability suites resolve no names)`));
  const app = await startTestApp({
    env: {
      DATABASE_URL: await isolatedDatabase(),
      METRICS_ENABLED: 'true',
      RATE_LIMIT_REQUESTS: '100000000',
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '100000000',
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
      WEBHOOK_CA_FILE: TEST_CA_FILE,
      WEBHOOK_DELIVERY_ENABLED: opts.deliveries ? 'true' : 'false',
      WEBHOOK_TIMEOUT_MS: '2000',
      ...opts.env,
    },
    webhookDns: { register: noDns, deliver: noDns },
  });
  return {
    app,
    receiver,
    settle: async () => {
      const pump = app.built.services.webhookPump;
      if (!pump) return;
      // Bounded: a delivery that can never be sent must fail the test with its sequence, not time it out.
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error('webhook deliveries did not settle within 5 s')), 5_000)),
      );
      try {
        await Promise.race([pump.settle(), limit]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => {
      await app.close();
      await receiver.close();
    },
  };
}

/** One organization with one resource of each type, created through the API as its admin. */
export interface OrgFixture {
  org: TestOrg;
  ids: Ids;
  /** Secrets paths take (the accept token of the fixture's pending invite). */
  tokens: Tokens;
  /** A new resource of this type (for routes that use theirs up); types no route uses up return the fixture's. */
  fresh(r: IdResource): Promise<string>;
}

async function created(r: Promise<Reply>, what: string): Promise<string> {
  const res = await r;
  if (res.status !== 201 || typeof res.body?.id !== 'string')
    throw new Error(`fixture: creating ${what} answered ${res.status} ${res.text.slice(0, 300)}`);
  return res.body.id as string;
}

/** A red-team run's create body (a running run: findings may be added, finalize uses it up). */
export const REDTEAM_RUN_BODY = {
  scope_hash: 'e'.repeat(64),
  upload_enabled: false,
  training_consent: false,
  written_authorization: true,
  attached_authenticated: false,
  started_at: '2026-11-20T10:00:00Z',
  model_versions: {},
  corpus_hashes: {},
  redteam_version: 'fixture',
};

/** A red-team run created through the API: its `run_id`. */
async function createdRun(r: Promise<Reply>): Promise<string> {
  const res = await r;
  if (res.status !== 201 || typeof res.body?.run_id !== 'string')
    throw new Error(`fixture: creating a red-team run answered ${res.status} ${res.text.slice(0, 300)}`);
  return res.body.run_id as string;
}

/** A legacy analysis session created through the API: its `analysis_id` (a per-organization number), as text. */
async function createdAnalysis(r: Promise<Reply>): Promise<string> {
  const res = await r;
  if (res.status !== 201 || !Number.isInteger(res.body?.analysis_id))
    throw new Error(`fixture: creating an analysis session answered ${res.status} ${res.text.slice(0, 300)}`);
  return String(res.body.analysis_id);
}

/** A labeled event appended through the API (a `feedback` one): its `event_id`. */
async function appendedEvent(r: Promise<Reply>): Promise<string> {
  const res = await r;
  const id = res.body?.event_ids?.[0];
  if (res.status !== 201 || typeof id !== 'string')
    throw new Error(`fixture: appending a labeled event answered ${res.status} ${res.text.slice(0, 300)}`);
  return id;
}

/** An invite created through the API: its id and the accept token of its URL (the only place it is given). */
async function createdInvite(r: Promise<Reply>): Promise<{ id: string; token: string }> {
  const res = await r;
  const token = /[#&]token=([A-Za-z0-9_-]{43})$/.exec(String(res.body?.accept_url ?? ''))?.[1];
  const id = res.body?.invite?.id;
  if (res.status !== 201 || typeof id !== 'string' || !token)
    throw new Error(`fixture: creating an invite answered ${res.status} ${res.text.slice(0, 300)}`);
  return { id, token };
}

/** An evidence upload created and uploaded through the API (local backend): its verified storage key. */
async function uploadedEvidence(app: TestApp, admin: string): Promise<string> {
  const bytes = Buffer.from('reliability evidence');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const res = await call(app, 'POST', '/v1/evidence-uploads', {
    key: admin,
    json: { kind: 'fixture', sha256, size_bytes: bytes.length },
  });
  const url = new URL(String(res.body?.upload_url ?? 'http://invalid/'));
  const put = await fetch(`${app.baseUrl}${url.pathname}${url.search}`, { method: 'PUT', body: new Uint8Array(bytes) });
  if (res.status !== 201 || put.status !== 200)
    throw new Error(`fixture: an evidence upload answered ${res.status}, then ${put.status} ${await put.text()}`);
  return res.body.storage_key as string;
}

/**
 * A member (role `member`) of the organization, inserted as a first SSO request provisions one: the
 * suites run with API keys, so no session token makes it (there is no route that adds a member
 * directly; an invite needs a session to accept).
 */
async function insertMember(app: TestApp, orgId: string): Promise<string> {
  const now = new Date();
  const user = await provisionUser(app.db, {
    id: newId('user', now.getTime()),
    org_id: orgId,
    external_subject: `reliability|${randomBytes(6).toString('hex')}`,
    email: `member-${randomBytes(3).toString('hex')}@example.com`,
    role: 'member',
    created_at: now,
  });
  return user.id;
}

/**
 * Builds an organization's fixture: a webhook on the receiver subscribed to every scan event, a policy
 * that notifies it, a scan decided by the policy (so the webhook has a delivery, sent and `succeeded`
 * when deliveries are on), an API key holding only `api_keys:write` (which every key allowed to
 * rotate or revoke keys may act on), a pending invite (with its accept token), a member and a
 * legacy analysis session.
 */
export async function buildFixture(r: ReliabilityApp, org?: TestOrg): Promise<OrgFixture> {
  const { app, receiver } = r;
  const o = org ?? (await buildOrg(app));
  const post = (path: string, json: unknown) => call(app, 'POST', path, { key: o.admin, json });
  const webhook = await created(post('/v1/webhooks', { url: receiver.url, events: SCAN_EVENTS }), 'a webhook');
  const policy = await created(post('/v1/policies', policyBody(webhook)), 'a policy');
  const scan = await created(post('/v1/scans', scanBody(policy)), 'a scan');
  await r.settle();
  const deliveries = await call(app, 'GET', `/v1/webhooks/${webhook}/deliveries`, { key: o.admin });
  const delivery = deliveries.body?.data?.[0]?.id;
  if (typeof delivery !== 'string')
    throw new Error(`fixture: the scan enqueued no delivery: ${deliveries.text.slice(0, 300)}`);
  const freshKey = () =>
    created(post('/v1/api-keys', { name: 'fixture key', scopes: ['api_keys:write'] }), 'an API key');
  const freshInvite = () => createdInvite(post('/v1/invites', { email: 'fixture@example.com', role: 'member' }));
  const invite = await freshInvite();
  const freshRun = () => createdRun(post('/v1/redteam-runs', REDTEAM_RUN_BODY));
  const freshEvent = () =>
    appendedEvent(
      post('/v1/labeled-events', {
        events: [{ source: 'feedback', observed_at: '2026-11-20T10:00:00Z', input: 'fixture', output: 'fixture' }],
      }),
    );
  const freshAnalysis = () => createdAnalysis(post('/v1/legacy-analyses', { name: 'fixture session' }));
  const ids: Ids = {
    api_key: await freshKey(),
    policy,
    webhook,
    webhook_delivery: delivery,
    scan,
    invite: invite.id,
    user: await insertMember(app, o.orgId),
    organization: o.orgId,
    redteam_run: await freshRun(),
    labeled_event: await freshEvent(),
    legacy_analysis: await freshAnalysis(),
  };
  return {
    org: o,
    ids,
    tokens: { invite_token: invite.token, evidence_storage_key: await uploadedEvidence(app, o.admin) },
    fresh: async (t) => {
      switch (t) {
        case 'api_key':
          return freshKey();
        case 'invite':
          return (await freshInvite()).id;
        case 'user':
          return insertMember(app, o.orgId);
        case 'policy':
          return created(post('/v1/policies', policyBody(null, 'fresh policy')), 'a policy');
        case 'webhook':
          return created(post('/v1/webhooks', { url: receiver.url, events: ['webhook.failing'] }), 'a webhook');
        case 'redteam_run':
          return freshRun();
        case 'labeled_event':
          return freshEvent();
        case 'legacy_analysis':
          return freshAnalysis();
        default:
          return ids[t];
      }
    },
  };
}

export interface ValidRequest {
  path: string;
  body?: unknown;
}

/**
 * The route's valid request for this organization: its path ids from the fixture (fresh ones for
 * routes that use theirs up, unless `fresh: false`) and its path tokens, its required query, body
 * `variant` of the table's bodies.
 */
export async function validRequest(
  e: RouteEntry,
  fx: OrgFixture,
  receiverUrl: string,
  o: { fresh?: boolean; variant?: number } = {},
): Promise<ValidRequest> {
  const ids: Record<string, string> = {};
  for (const m of e.path.matchAll(/\{([a-z_]+)\}/g)) {
    const token = PARAM_TOKEN[m[1]!];
    if (token) {
      ids[m[1]!] = fx.tokens[token];
      continue;
    }
    const resource = PARAM_RESOURCE[m[1]!]!;
    ids[m[1]!] = e.consumes && o.fresh !== false ? await fx.fresh(resource) : fx.ids[resource];
  }
  const query = e.requiredQuery ? `?${new URLSearchParams(e.requiredQuery).toString()}` : '';
  const path = fillPath(e.path, (p) => ids[p]!) + query;
  const bodies = e.bodies?.(fx.ids);
  if (!bodies) return { path };
  return { path, body: withReceiver(bodies[(o.variant ?? 0) % bodies.length], receiverUrl) };
}

const CODE = /^[a-z_]+(\.[a-z_]+)+$/;

/** A problem document's violations of the error contract (status, code shape). */
function problemViolations(p: unknown, status: number, where: string): string[] {
  if (p === null || typeof p !== 'object') return [`${where}: not a JSON object`];
  const doc = p as Record<string, unknown>;
  const out: string[] = [];
  if (typeof doc.code !== 'string' || !CODE.test(doc.code))
    out.push(`${where}: code ${JSON.stringify(doc.code)} is not dot-namespaced`);
  if (doc.status !== status) out.push(`${where}: status field ${JSON.stringify(doc.status)} differs from ${status}`);
  return out;
}

/** The problem code of a JSON answer, if it has one. */
function codeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown } | null)?.code;
  } catch {
    return undefined;
  }
}

/**
 * Everything wrong with a response by the contract every route keeps: no 5xx (but the route's own
 * `declared` answer in this deployment, RouteEntry.expect: a 501 of a route it does not support); an
 * `X-Request-Id`; errors as `application/problem+json` with a dot-namespaced `code` and `status` equal
 * to the HTTP status; a server-sent `error` event likewise (a stream has already answered 200).
 */
export function responseViolations(
  status: number,
  headers: Headers,
  text: string,
  method = 'GET',
  declared?: Answer,
): string[] {
  const out: string[] = [];
  const isDeclared = status === declared?.status && (method === 'HEAD' || codeOf(text) === declared.code);
  if (status >= 500 && !isDeclared) out.push(`status ${status}`);
  if (!headers.get('x-request-id')) out.push('no X-Request-Id');
  const type = headers.get('content-type') ?? '';
  if (status >= 400) {
    if (!type.startsWith('application/problem+json')) out.push(`error content-type ${JSON.stringify(type)}`);
    // A HEAD answer has the headers of the problem, and no body.
    else if (method !== 'HEAD') {
      try {
        out.push(...problemViolations(JSON.parse(text), status, 'problem'));
      } catch {
        out.push('problem body is not JSON');
      }
    }
  }
  if (type.startsWith('text/event-stream')) {
    for (const block of text.split('\n\n')) {
      if (!/^event: error$/m.test(block)) continue;
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      try {
        const p = JSON.parse(data) as { status?: unknown };
        if (typeof p.status === 'number' && p.status >= 500) out.push(`stream error event with status ${p.status}`);
        out.push(...problemViolations(p, typeof p.status === 'number' ? p.status : -1, 'stream error event'));
      } catch {
        out.push('stream error event is not JSON');
      }
    }
  }
  return out;
}

/**
 * A digest of everything an organization holds, read straight from the database: row counts of each
 * table, revoked keys, policy revisions, webhook secrets, members' roles and removals, invites'
 * states. Every change the API makes moves it (each management change also writes an audit row);
 * background delivery attempts do not.
 */
export async function orgDigest(app: TestApp, orgId: string): Promise<Record<string, unknown>> {
  const { rows } = await app.db.query(
    `SELECT
       (SELECT count(*)::int FROM audit_events WHERE org_id = $1) AS audit_events,
       (SELECT count(*)::int FROM scans WHERE org_id = $1) AS scans,
       (SELECT count(*)::int FROM api_keys WHERE org_id = $1) AS api_keys,
       (SELECT count(*)::int FROM api_keys WHERE org_id = $1 AND revoked_at IS NOT NULL) AS revoked_keys,
       (SELECT string_agg(id || '@' || revision_id, ',' ORDER BY id) FROM policies WHERE org_id = $1) AS policies,
       (SELECT string_agg(id || '@' || md5(secret_enc), ',' ORDER BY id) FROM webhooks WHERE org_id = $1) AS webhooks,
       (SELECT count(*)::int FROM webhook_deliveries WHERE org_id = $1) AS deliveries,
       (SELECT count(*)::int FROM labeled_events WHERE org_id = $1) AS labeled_events,
       (SELECT count(*)::int FROM redaction_policies WHERE org_id = $1) AS redaction_policies,
       (SELECT string_agg(analysis_id || ':' || name, ',' ORDER BY analysis_id)
          FROM legacy_analyses WHERE org_id = $1) AS legacy_analyses,
       (SELECT string_agg(id || ':' || role || ':' || (removed_at IS NULL), ',' ORDER BY id)
          FROM users WHERE org_id = $1) AS users,
       (SELECT string_agg(id || ':' || (revoked_at IS NULL) || ':' || (accepted_at IS NULL), ',' ORDER BY id)
          FROM invites WHERE org_id = $1) AS invites`,
    [orgId],
  );
  return rows[0] as Record<string, unknown>;
}
