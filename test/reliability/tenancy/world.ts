/**
 * The world of the tenancy suite: the app (`r`, a live binding set by the `beforeAll` that
 * `useTenancyApp` registers), two organizations with their fixtures, the state each was last seen
 * in (read through every list of the table as its owner, plus a row digest), and the checks run on
 * every operation: a foreign id answers like an unknown one, the other organization's state does not
 * move, no answer shows an id of the other organization that the caller did not send itself.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { buildOrg, call, expectProblem, type Reply } from '../../support/harness.ts';
import {
  buildFixture,
  orgDigest,
  responseViolations,
  startReliabilityApp,
  type OrgFixture,
  type ReliabilityApp,
} from '../fixture.ts';
import {
  expectedAnswer,
  fillPath,
  ID_RESOURCES,
  PARAM_RESOURCE,
  paramsOf,
  perOrgNumber,
  RESOURCES,
  routeKey,
  ROUTES,
  UNLISTED,
  unknownId,
  withReceiver,
  type Answer,
  type IdResource,
  type Ids,
  type RouteEntry,
} from '../routes.ts';
import { byKey, isIdResource, masked, partsOf, resourceOf, type Op } from './operations.ts';

export let r: ReliabilityApp;
/** What the generated sequences did (printed after the run: the figures of docs/reliability.md). */
export const stats = { sequences: 0, operations: 0, foreign: 0, skipped: 0, byPart: new Map<string, number>() };

/** Starts the app (webhook deliveries on) before this file's tests; closes it after them. */
export function useTenancyApp(): void {
  beforeAll(async () => {
    r = await startReliabilityApp({ deliveries: true });
  }, 60_000);
  afterAll(async () => r?.close());
}

// ---------------------------------------------------------------------------------------------
// An organization's state as its owner reads it

/** The table's lists: parameterless ones first, then those under a resource (a webhook's deliveries). */
export const LISTS = ROUTES.filter((e) => e.method === 'GET' && e.list).sort(
  (a, b) => paramsOf(a.path).length - paramsOf(b.path).length,
);

interface Snapshot {
  /** Every list page (as the owner reads it) and the row digest. */
  state: Record<string, unknown>;
  /** The ids of each resource type the lists hold. */
  ids: Record<IdResource, string[]>;
}

// Written off the request path, at most once a minute: the owner reading its own state moves it.
const VOLATILE = new Set(['last_used_at']);
const stable = (data: unknown[]) =>
  data.map((d) => Object.fromEntries(Object.entries(d as Record<string, unknown>).filter(([k]) => !VOLATILE.has(k))));

/** Everything `fx`'s organization holds, read through every list of the table as its admin (and unlisted ids). */
async function snapshot(fx: OrgFixture): Promise<Snapshot> {
  await r.settle();
  const ids = Object.fromEntries(ID_RESOURCES.map((t) => [t, [] as string[]])) as Record<IdResource, string[]>;
  const state: Record<string, unknown> = {};
  for (const e of LISTS) {
    const params = paramsOf(e.path);
    const targets = params.length === 0 ? [''] : ids[PARAM_RESOURCE[params[0]!]!];
    const pages = await Promise.all(
      targets.map((id) =>
        call(r.app, 'GET', `${fillPath(e.path, () => id)}?limit=${e.list!.limitMax}`, { key: fx.org.admin }).then(
          (res) => [id, res] as const,
        ),
      ),
    );
    for (const [id, res] of pages) {
      if (res.status !== 200)
        throw new Error(`snapshot: ${routeKey(e)} ${id} answered ${res.status} ${res.text.slice(0, 200)}`);
      if (res.body.next_cursor !== null) throw new Error(`snapshot: ${routeKey(e)} has more than one page`);
      const data = res.body.data as Record<string, string>[];
      state[`${routeKey(e)} ${id}`] = stable(data);
      if (isIdResource(e.resource)) {
        const field = RESOURCES[e.resource].idField ?? 'id';
        ids[e.resource].push(...data.map((d) => String(d[field]!)));
      }
    }
  }
  // A type no list reads back (the organization itself): the fixture's own id is the only one.
  for (const t of ID_RESOURCES) if (UNLISTED[t]) ids[t].push(fx.ids[t]);
  state.digest = await orgDigest(r.app, fx.org.orgId);
  return { state, ids };
}

// ---------------------------------------------------------------------------------------------
// Running an operation

/** `value` with `at` set to `v`, creating objects on the way. */
function setAt(value: unknown, at: (string | number)[], v: string): unknown {
  if (at.length === 0) return v;
  const [head, ...rest] = at;
  if (Array.isArray(value)) return value.map((x, i) => (i === head ? setAt(x, rest, v) : x));
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  return { ...obj, [head!]: setAt(obj[head as string], rest, v) };
}

interface Built {
  method: string;
  path: string;
  body?: unknown;
  accept?: string;
}

/**
 * The request of `op` on `e` with the id of each part (by its index in `partsOf(e)`) from `id`.
 * Query references become the route's only filter.
 */
function build(e: RouteEntry, op: Op, ownIds: Ids, id: (part: number) => string): Built {
  const parts = partsOf(e);
  const path = fillPath(e.path, (param) => id(parts.findIndex((p) => p.in === 'path' && p.param === param)));
  let body = e.bodies
    ? withReceiver(e.bodies(ownIds)[op.variant % e.bodies(ownIds).length], r.receiver.url)
    : undefined;
  const query: string[] = [];
  parts.forEach((p, i) => {
    if (p.in === 'body') body = setAt(body, p.ref.at, id(i));
    if (p.in === 'query') query.push(`${p.ref.at[0]}=${encodeURIComponent(id(i))}`);
  });
  const accept = e.accepts?.[op.accept % e.accepts.length];
  return {
    method: e.method,
    path: query.length ? `${path}?${query.join('&')}` : path,
    body,
    ...(accept ? { accept } : {}),
  };
}

function send(fx: OrgFixture, b: Built): Promise<Reply> {
  return call(r.app, b.method, b.path, {
    key: fx.org.admin,
    ...(b.body === undefined ? {} : { json: b.body }),
    ...(b.accept ? { headers: { accept: b.accept } } : {}),
  });
}

export interface World {
  A: OrgFixture;
  B: OrgFixture;
  /** The state each organization was last seen in (after its own last operation). */
  seen: Record<'A' | 'B', Snapshot>;
  /** Ids of the other organization each one sent itself (its answers may echo them). */
  sent: Record<'A' | 'B', Set<string>>;
  log: string[];
}

const other = (s: 'A' | 'B'): 'A' | 'B' => (s === 'A' ? 'B' : 'A');

/**
 * Ids of `owner` that `viewer` must never be shown: all of them (but per-organization numbers, which
 * every organization has), and the organization's own id.
 */
function secretIds(w: World, owner: 'A' | 'B', viewer: 'A' | 'B'): string[] {
  const s = w.seen[owner];
  const all = [w[owner].org.orgId, ...ID_RESOURCES.filter((t) => !perOrgNumber(t)).flatMap((t) => s.ids[t])];
  return all.filter((id) => !w.sent[viewer].has(id));
}

export function expectNoLeak(w: World, res: Reply, viewer: 'A' | 'B', what: string): void {
  const leaked = secretIds(w, other(viewer), viewer).filter((id) => res.text.includes(id));
  if (leaked.length)
    throw new Error(
      `${what}: organization ${viewer} was shown ${other(viewer)}'s ${leaked.join(', ')}:\n${res.text.slice(0, 600)}`,
    );
}

function expectSane(res: Reply, what: string, declared?: Answer): void {
  const v = responseViolations(res.status, res.headers, res.text, 'GET', declared);
  if (v.length) throw new Error(`${what}: ${v.join('; ')} — ${res.text.slice(0, 400)}`);
}

/** Runs one operation and checks it against the other organization's last seen state. */
export async function runOp(w: World, op: Op): Promise<void> {
  const e = byKey.get(op.route)!;
  const actor = w[op.actor];
  const victim = other(op.actor);
  const parts = partsOf(e);
  const foreignAt = op.foreign && parts.length ? op.part % parts.length : -1;
  const foreignPart = foreignAt >= 0 ? parts[foreignAt]! : null;
  const mine = w.seen[op.actor].ids;
  const theirs = w.seen[victim].ids;
  // Routes that use their resource up never take the actor's own admin key (the sequence needs it).
  const ownPool = (t: IdResource) =>
    t === 'api_key' && e.consumes ? mine[t].filter((id) => id !== actor.org.adminId) : mine[t];
  const pickFrom = (pool: string[]) => pool[op.pick % pool.length];
  const ownIds = Object.fromEntries(ID_RESOURCES.map((t) => [t, pickFrom(ownPool(t)) ?? actor.ids[t]])) as Ids;

  let foreignId: string | undefined;
  if (foreignPart) {
    foreignId = pickFrom(theirs[resourceOf(foreignPart)]);
    if (foreignId === undefined) {
      stats.skipped++; // the other organization holds none of this type now
      return;
    }
    stats.foreign++;
    const k = `${foreignPart.in} ${resourceOf(foreignPart)}`;
    stats.byPart.set(k, (stats.byPart.get(k) ?? 0) + 1);
  }
  stats.operations++;
  const idOf = (i: number) => (i === foreignAt ? foreignId! : ownIds[resourceOf(parts[i]!)]);
  const req = build(e, op, ownIds, idOf);
  const what = `${op.actor}: ${req.method} ${req.path}${foreignPart ? ` (${victim}'s ${resourceOf(foreignPart)} in the ${foreignPart.in})` : ''}`;
  w.log.push(what);
  if (foreignId) w.sent[op.actor].add(foreignId);

  const res = await send(actor, req);
  const declared = expectedAnswer(e, r.app.config.DEPLOYMENT_MODE);
  expectSane(res, what, declared);
  // The other organization's number names the actor's own resource (or none): only "nothing of the
  // other organization moved" below applies.
  if (foreignPart && !perOrgNumber(resourceOf(foreignPart))) {
    const unknown = unknownId(resourceOf(foreignPart));
    const asUnknown = await send(
      actor,
      build(e, op, ownIds, (i) => (i === foreignAt ? unknown : idOf(i))),
    );
    const got = { status: res.status, type: res.headers.get('content-type'), body: masked(res) };
    const want = { status: asUnknown.status, type: asUnknown.headers.get('content-type'), body: masked(asUnknown) };
    expect(got, `${what}: answered unlike the same request on an unknown id`).toEqual(want);
    // Another organization's id in the path is not found, with that resource's code (unless the
    // deployment does not support the route: its 501 comes before any id is read).
    if (foreignPart.in === 'path' && !(declared && declared.status >= 500))
      expectProblem(res, 404, RESOURCES[resourceOf(foreignPart)].notFound);
  }
  expectNoLeak(w, res, op.actor, what);

  // Nothing of the other organization moved; the actor's own state is whatever it did.
  const after = await snapshot(w[victim]);
  expect(after.state, `${what}: changed organization ${victim}'s state`).toEqual(w.seen[victim].state);
  w.seen[op.actor] = await snapshot(actor);
}

/** Every resource reads back as its owner's, and as unknown to the other organization. */
export async function readBack(w: World): Promise<void> {
  const gets = ROUTES.filter((e) => e.method === 'GET' && !e.list && paramsOf(e.path).length === 1);
  for (const side of ['A', 'B'] as const) {
    const owner = w[side];
    const stranger = w[other(side)];
    for (const e of gets) {
      const t = PARAM_RESOURCE[paramsOf(e.path)[0]!]!;
      for (const id of w.seen[side].ids[t]) {
        const path = fillPath(e.path, () => id);
        const mineRes = await call(r.app, 'GET', path, { key: owner.org.admin });
        expect(mineRes.status, `${side} reading its own ${path}`).toBe(200);
        // a number the stranger holds too names the stranger's own resource
        if (perOrgNumber(t) && w.seen[other(side)].ids[t].includes(id)) continue;
        const theirs = await call(r.app, 'GET', path, { key: stranger.org.admin });
        expectProblem(theirs, 404, RESOURCES[t].notFound);
        // the answer names the number, which is no secret: no other number's answer reads the same
        if (perOrgNumber(t)) continue;
        const unknown = await call(
          r.app,
          'GET',
          fillPath(e.path, () => unknownId(t)),
          { key: stranger.org.admin },
        );
        expect(masked(theirs), `${other(side)} reading ${side}'s ${path}`).toBe(masked(unknown));
      }
    }
    // The audit log of one never names the other's resources.
    const { rows } = await r.app.db.query(
      'SELECT resource_id FROM audit_events WHERE org_id = $1 AND resource_id IS NOT NULL',
      [owner.org.orgId],
    );
    const foreign = new Set(secretIds(w, other(side), side));
    expect(
      rows.map((x) => x.resource_id as string).filter((id) => foreign.has(id)),
      `${side}'s audit rows`,
    ).toEqual([]);
  }
}

export async function newWorld(): Promise<World> {
  const [A, B] = [
    await buildFixture(r, await buildOrg(r.app, 'Tenant A')),
    await buildFixture(r, await buildOrg(r.app, 'Tenant B')),
  ];
  return { A, B, seen: { A: await snapshot(A), B: await snapshot(B) }, sent: { A: new Set(), B: new Set() }, log: [] };
}
