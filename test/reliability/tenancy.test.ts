/**
 * Tenant isolation, generated: fast-check draws sequences of operations by two organizations over
 * every route of the table (routes.ts) — their own resources, or ids of the other organization in the
 * path, in a body (`options.policy_id`, `scan_id`, `then.notify`) or in a filter (`resource_id`).
 * Every operation on the other's id must answer exactly like the same operation on an unknown id
 * (status, content type, body with ids and instants masked), and no operation may change anything of
 * the other organization: its whole state, read through the API as its owner plus a digest of its
 * rows, is compared after every operation. No answer to one organization ever holds an id of the
 * other that it did not send itself. After each sequence every resource reads back as its owner's,
 * and as unknown to the other.
 *
 * Table-driven: the operations are the table's routes, the state read back is the table's lists, so
 * a route or resource type added to the table is covered (and the table must list every route).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../lib/ids.ts';
import { buildOrg, call, expectProblem, type Reply } from '../support/harness.ts';
import { budgetMs, cases } from './profile.ts';
import {
  buildFixture,
  orgDigest,
  responseViolations,
  startReliabilityApp,
  type OrgFixture,
  type ReliabilityApp,
} from './fixture.ts';
import {
  checkTable,
  fillPath,
  ID_RESOURCES,
  PARAM_RESOURCE,
  paramsOf,
  RESOURCES,
  routeKey,
  ROUTES,
  withReceiver,
  type IdRef,
  type IdResource,
  type Ids,
  type RouteEntry,
} from './routes.ts';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261124);
const TIME_LIMIT_MS = budgetMs(60_000, 1_200_000);

let r: ReliabilityApp;
/** What the generated sequences did (printed after the run: the figures of docs/reliability.md). */
const stats = { sequences: 0, operations: 0, foreign: 0, skipped: 0, byPart: new Map<string, number>() };

beforeAll(async () => {
  r = await startReliabilityApp({ deliveries: true });
}, 60_000);
afterAll(async () => r?.close());

// ---------------------------------------------------------------------------------------------
// An organization's state as its owner reads it

/** The table's lists: parameterless ones first, then those under a resource (a webhook's deliveries). */
const LISTS = ROUTES.filter((e) => e.method === 'GET' && e.list).sort(
  (a, b) => paramsOf(a.path).length - paramsOf(b.path).length,
);

interface Snapshot {
  /** Every list page (as the owner reads it) and the row digest. */
  state: Record<string, unknown>;
  /** The ids of each resource type the lists hold. */
  ids: Record<IdResource, string[]>;
}

const isIdResource = (x: string): x is IdResource => (ID_RESOURCES as readonly string[]).includes(x);

// Written off the request path, at most once a minute: the owner reading its own state moves it.
const VOLATILE = new Set(['last_used_at']);
const stable = (data: unknown[]) =>
  data.map((d) => Object.fromEntries(Object.entries(d as Record<string, unknown>).filter(([k]) => !VOLATILE.has(k))));

/** Everything `fx`'s organization holds, read through every list of the table as its admin. */
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
      const data = res.body.data as { id: string }[];
      state[`${routeKey(e)} ${id}`] = stable(data);
      if (isIdResource(e.resource)) ids[e.resource].push(...data.map((d) => d.id));
    }
  }
  state.digest = await orgDigest(r.app, fx.org.orgId);
  return { state, ids };
}

// ---------------------------------------------------------------------------------------------
// Operations

const OP_ROUTES = ROUTES.filter(
  (e) => e.scope !== 'public' && (isIdResource(e.resource) || e.resource === 'audit_event'),
);
const byKey = new Map(OP_ROUTES.map((e) => [routeKey(e), e]));

interface Op {
  actor: 'A' | 'B';
  route: string;
  /** Name one of the other organization's ids (in the path, body or query: `part` picks which). */
  foreign: boolean;
  part: number;
  pick: number;
  variant: number;
  accept: number;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  actor: fc.constantFrom<Op['actor']>('A', 'B'),
  route: fc.constantFrom(...OP_ROUTES.map(routeKey)),
  foreign: fc.boolean(),
  part: fc.nat(),
  pick: fc.nat(),
  variant: fc.nat(),
  accept: fc.nat(),
});

/** The places a route names a resource id: each path parameter, each body or query reference. */
type Part = { in: 'path'; param: string; resource: IdResource } | { in: 'body' | 'query'; ref: IdRef };

function partsOf(e: RouteEntry): Part[] {
  return [
    ...paramsOf(e.path).map((param): Part => ({ in: 'path', param, resource: PARAM_RESOURCE[param]! })),
    ...(e.bodyRefs ?? []).map((ref): Part => ({ in: 'body', ref })),
    ...(e.queryRefs ?? []).map((ref): Part => ({ in: 'query', ref })),
  ];
}
const resourceOf = (p: Part): IdResource => (p.in === 'path' ? p.resource : p.ref.resource);

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

const ANY_ID = new RegExp(`\\b(?:${Object.values(ID_PREFIX).join('|')})_[0-9A-HJKMNP-TV-Z]{26}\\b`, 'g');
/** A response with what differs between any two requests masked: ids, instants, secrets, cursors, request ids. */
function masked(res: Reply): string {
  return res.text
    .replace(ANY_ID, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<instant>')
    .replace(/(sk_(live|test)_|whsec_)[0-9A-Za-z]+/g, '<secret>')
    .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"<cursor>"')
    .replace(/"elapsed_ms":[0-9.e-]+/g, '"elapsed_ms":0');
}

interface World {
  A: OrgFixture;
  B: OrgFixture;
  /** The state each organization was last seen in (after its own last operation). */
  seen: Record<'A' | 'B', Snapshot>;
  /** Ids of the other organization each one sent itself (its answers may echo them). */
  sent: Record<'A' | 'B', Set<string>>;
  log: string[];
}

const other = (s: 'A' | 'B'): 'A' | 'B' => (s === 'A' ? 'B' : 'A');

/** Ids of `owner` that `viewer` must never be shown: all of them, and the organization's own id. */
function secretIds(w: World, owner: 'A' | 'B', viewer: 'A' | 'B'): string[] {
  const s = w.seen[owner];
  const all = [w[owner].org.orgId, ...ID_RESOURCES.flatMap((t) => s.ids[t])];
  return all.filter((id) => !w.sent[viewer].has(id));
}

function expectNoLeak(w: World, res: Reply, viewer: 'A' | 'B', what: string): void {
  const leaked = secretIds(w, other(viewer), viewer).filter((id) => res.text.includes(id));
  if (leaked.length)
    throw new Error(
      `${what}: organization ${viewer} was shown ${other(viewer)}'s ${leaked.join(', ')}:\n${res.text.slice(0, 600)}`,
    );
}

function expectSane(res: Reply, what: string): void {
  const v = responseViolations(res.status, res.headers, res.text);
  if (v.length) throw new Error(`${what}: ${v.join('; ')} — ${res.text.slice(0, 400)}`);
}

/** Runs one operation and checks it against the other organization's last seen state. */
async function runOp(w: World, op: Op): Promise<void> {
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
  expectSane(res, what);
  if (foreignPart) {
    const unknown = newId(RESOURCES[resourceOf(foreignPart)].idKind);
    const asUnknown = await send(
      actor,
      build(e, op, ownIds, (i) => (i === foreignAt ? unknown : idOf(i))),
    );
    const got = { status: res.status, type: res.headers.get('content-type'), body: masked(res) };
    const want = { status: asUnknown.status, type: asUnknown.headers.get('content-type'), body: masked(asUnknown) };
    expect(got, `${what}: answered unlike the same request on an unknown id`).toEqual(want);
    // Another organization's id in the path is not found, with that resource's code.
    if (foreignPart.in === 'path') expectProblem(res, 404, RESOURCES[resourceOf(foreignPart)].notFound);
  }
  expectNoLeak(w, res, op.actor, what);

  // Nothing of the other organization moved; the actor's own state is whatever it did.
  const after = await snapshot(w[victim]);
  expect(after.state, `${what}: changed organization ${victim}'s state`).toEqual(w.seen[victim].state);
  w.seen[op.actor] = await snapshot(actor);
}

/** Every resource reads back as its owner's, and as unknown to the other organization. */
async function readBack(w: World): Promise<void> {
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
        const theirs = await call(r.app, 'GET', path, { key: stranger.org.admin });
        expectProblem(theirs, 404, RESOURCES[t].notFound);
        const unknown = await call(
          r.app,
          'GET',
          fillPath(e.path, () => newId(RESOURCES[t].idKind)),
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

async function newWorld(): Promise<World> {
  const [A, B] = [
    await buildFixture(r, await buildOrg(r.app, 'Tenant A')),
    await buildFixture(r, await buildOrg(r.app, 'Tenant B')),
  ];
  return { A, B, seen: { A: await snapshot(A), B: await snapshot(B) }, sent: { A: new Set(), B: new Set() }, log: [] };
}

describe('tenant isolation', () => {
  it('covers every resource type of the table: each has a list the owner reads back, and ids a fixture creates', () => {
    expect(checkTable(r.app.built.routeTable)).toEqual([]);
    const listed = new Set(LISTS.map((e) => e.resource));
    const touched = new Set(ROUTES.filter((e) => e.scope !== 'public').map((e) => e.resource));
    for (const t of touched) if (t !== 'principal') expect(listed.has(t), `no list route reads ${t} back`).toBe(true);
    for (const t of ID_RESOURCES) expect(RESOURCES[t].notFound).toMatch(/\.(not_found|delivery_not_found)$/);
    for (const e of OP_ROUTES) for (const p of partsOf(e)) expect(ID_RESOURCES).toContain(resourceOf(p));
  });

  it('each key identifies its own organization', async () => {
    const w = await newWorld();
    for (const side of ['A', 'B'] as const) {
      const me = await call(r.app, 'GET', '/v1/me', { key: w[side].org.admin });
      expect(me.body.org_id).toBe(w[side].org.orgId);
      expectNoLeak(w, me, side, '/v1/me');
    }
  });

  it('every route, each id it takes naming the other organization (and each representation), both ways', async () => {
    const w = await newWorld();
    try {
      for (const e of OP_ROUTES) {
        const parts = Math.max(1, partsOf(e).length);
        for (let part = 0; part < parts; part++) {
          for (let accept = 0; accept < (e.accepts?.length ?? 1); accept++) {
            for (const actor of ['A', 'B'] as const)
              await runOp(w, { actor, route: routeKey(e), foreign: true, part, pick: 0, variant: 0, accept });
          }
        }
      }
      await readBack(w);
    } catch (err) {
      (err as Error).message += `\nsequence so far:\n  ${w.log.join('\n  ')}`;
      throw err;
    }
  }, 60_000);

  it(
    'generated sequences by two organizations: a foreign id answers like an unknown one and changes nothing of its owner',
    async () => {
      Object.assign(stats, { sequences: 0, operations: 0, foreign: 0, skipped: 0, byPart: new Map() });
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: cases(8, 15), maxLength: cases(20, 40) }), async (ops) => {
          const w = await newWorld();
          stats.sequences++;
          try {
            for (const op of ops) await runOp(w, op);
            await readBack(w);
          } catch (err) {
            (err as Error).message += `\nsequence so far:\n  ${w.log.join('\n  ')}`;
            throw err;
          }
        }),
        // Shrinking a sequence replays it on new organizations: bounded, so a failure is reported
        // (with the smallest sequence found so far) within the test's budget.
        { numRuns: cases(8, 80), seed: SEED, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true },
      );
      const parts = [...stats.byPart].map(([k, n]) => `${k}: ${n}`).join(', ');
      console.log(
        `tenancy (seed ${SEED}): ${stats.sequences} sequences, ${stats.operations} operations, ${stats.foreign} on the other organization's ids (${parts}), ${stats.skipped} skipped (no id of that type)`,
      );
    },
    TIME_LIMIT_MS + 30_000,
  );
});
