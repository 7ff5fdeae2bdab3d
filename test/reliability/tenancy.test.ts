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
 * a route or resource type added to the table is covered (and the table must list every route). Not
 * operations: routes that reach across organizations by design (RouteEntry.crossTenant: invite accept,
 * whose token is the credential); a route the deployment does not support (RouteEntry.expect with a
 * 501: organization create and delete in self-hosted mode) answers alike for every id and changes nothing.
 *
 * tenancy/operations.ts: the operations and where they name ids; tenancy/world.ts: the two
 * organizations, their state, and the checks run on every operation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call } from '../support/harness.ts';
import { budgetMs, cases } from './profile.ts';
import { checkTable, ID_RESOURCES, RESOURCES, routeKey, ROUTES, UNLISTED } from './routes.ts';
import { opArb, OP_ROUTES, partsOf, resourceOf } from './tenancy/operations.ts';
import { expectNoLeak, LISTS, newWorld, r, readBack, runOp, stats, useTenancyApp } from './tenancy/world.ts';

const SEED = Number(process.env.RELIABILITY_SEED ?? 20261124);
const TIME_LIMIT_MS = budgetMs(60_000, 1_200_000);

useTenancyApp();

describe('tenant isolation', () => {
  it('covers every resource type of the table: each has a list the owner reads back (or is UNLISTED, with its reason), and ids a fixture creates', () => {
    expect(checkTable(r.app.built.routeTable)).toEqual([]);
    const listed = new Set(LISTS.map((e) => e.resource));
    const touched = new Set(ROUTES.filter((e) => e.scope !== 'public').map((e) => e.resource));
    for (const t of touched) if (!UNLISTED[t]) expect(listed.has(t), `no list route reads ${t} back`).toBe(true);
    for (const e of ROUTES.filter((x) => x.crossTenant)) expect(OP_ROUTES).not.toContain(e);
    for (const t of ID_RESOURCES)
      expect(RESOURCES[t].notFound).toMatch(/\.(not_found|delivery_not_found|run_not_found)$/);
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
