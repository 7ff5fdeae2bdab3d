/**
 * The body of a fuzz case: none, a valid one of the route, a valid one with mutations at chosen
 * paths, or something else altogether (random JSON, non-JSON text, deep nesting, over the size limit).
 */
import fc from 'fast-check';
import type { RouteEntry } from '../routes.ts';
import { Deep, Long, type Json, type Mutation } from './json.ts';
import { LONE, NUL, weirdKey, weirdValue } from './values.ts';

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom<Mutation['op']>(
    'replace',
    'replace',
    'replace',
    'delete',
    'add',
    'wrap',
    'taint',
    'taint',
    'taint',
  ),
  key: weirdKey,
  value: weirdValue,
  taint: fc.constantFrom(...LONE, ...NUL, '\ufffe', '\u2028', '\\', '"', '%00'),
});

export type Body =
  | { kind: 'none' }
  | { kind: 'valid'; variant: number }
  | { kind: 'mutated'; variant: number; mutations: Mutation[] }
  | { kind: 'json'; value: Json }
  | { kind: 'text'; text: string };

const nonJson = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constantFrom(
    '{',
    '{"a":1',
    "{'a':1}",
    'nul',
    'true false',
    '{"a":1}{"b":2}',
    '\u0000',
    '"\\ud800"',
    '{"\\ud800":1}',
    '[1,]',
    '{"a":01}',
    '\ufeff{}',
    '{"a":"\\x00"}',
    '1'.repeat(400),
  ),
);

export function bodyArb(e: RouteEntry): fc.Arbitrary<Body> {
  if (e.method === 'GET') return fc.constant({ kind: 'none' });
  const random = fc.oneof(
    { weight: 2, arbitrary: fc.jsonValue().map((value): Body => ({ kind: 'json', value: value as Json })) },
    { weight: 2, arbitrary: nonJson.map((text): Body => ({ kind: 'text', text })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(new Deep('array', 10_000), new Deep('object', 10_000))
        .map((value): Body => ({ kind: 'json', value })),
    },
    // Over the 1 MiB body limit.
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'json', value: new Long('x', 1_100_000) }) },
  );
  if (!e.bodies)
    return fc.oneof({ weight: 4, arbitrary: fc.constant<Body>({ kind: 'none' }) }, { weight: 1, arbitrary: random });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    { weight: 3, arbitrary: fc.nat().map((variant): Body => ({ kind: 'valid', variant })) },
    {
      weight: 12,
      arbitrary: fc
        .record({
          variant: fc.nat(),
          mutations: fc.oneof(
            { weight: 3, arbitrary: fc.tuple(mutation).map((m) => [...m]) },
            { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
          ),
        })
        .map((b): Body => ({ kind: 'mutated', ...b })),
    },
    { weight: 3, arbitrary: random },
  );
}
