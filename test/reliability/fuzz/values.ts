/**
 * Hostile values the fuzz puts in bodies: odd strings (lone surrogates, NUL, long, numeric, instants,
 * ids of every prefix), odd numbers, odd keys, and any of them nested.
 */
import fc from 'fast-check';
import { ID_PREFIX } from '../../../lib/ids.ts';
import { Deep, Long, RawJson, type Json } from './json.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ulidBody = fc.string({ unit: fc.constantFrom(...CROCKFORD), minLength: 26, maxLength: 26 });
export const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
export const LONE = ['\ud800', '\udfff', 'a\ud800b', '\udc00\ud800', '\ud83d'];
export const NUL = ['\u0000', 'a\u0000b', '\u0000\u0000'];
/** Path segments no id has: a bare or malformed escape, a slash, dot segments, overlong UTF-8, a 3,000-character one. */
export const HOSTILE_PATH_SEGMENTS = ['%', '%zz', '%2F', '..', '%2e%2e', '%C0%80', '%FF', 'a'.repeat(3000)];

const weirdString: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: anyUnit, maxLength: 12 }),
  fc.constantFrom(
    ...LONE,
    ...NUL,
    '',
    ' ',
    '\t',
    '\u202e',
    '\ufeff',
    '𝕏',
    '..',
    '/',
    '%00',
    '=1+1',
    "'; DROP TABLE scans;--",
  ),
  fc.constantFrom(
    new Long('x', 300),
    new Long('é', 5_000),
    new Long('a', 100_000),
    new Long('\ud800', 1_000),
    new Long('\u0000', 1_000),
  ),
  fc.constantFrom('18446744073709551616', '-9223372036854775809', '1e308', '0x10', 'NaN', 'Infinity', '-0'),
  fc.constantFrom(
    '2026-11-24T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2026-02-30T00:00:00Z',
    '2026-11-24T00:00:00+23:59',
    '1970-01-01T00:00:00-00:00',
    '+275760-09-13T00:00:00.000Z',
  ),
  fc.tuple(fc.constantFrom(...Object.values(ID_PREFIX)), ulidBody).map(([p, b]) => `${p}_${b}`),
);

const weirdNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 0.5, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 604_800, 604_801),
  fc
    .constantFrom(
      '1e308',
      '-1e308',
      '1e400',
      '-1e400',
      '-0',
      '18446744073709551616',
      '-18446744073709551616',
      '123456789012345678901234567890',
      '5e-324',
      '1E2',
      '0.1e-999',
    )
    .map((t) => new RawJson(t)),
);

/** Object keys: ordinary, unknown, with lone surrogates or NUL. */
export const weirdKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(...LONE, ...NUL, '__proto__', 'constructor', 'name', 'id', ''),
);

export const weirdValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: weirdString },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      new Deep('array', 10_000),
      new Deep('object', 10_000),
      new Deep('object', 1_000),
      new Deep('array', 100),
    ),
  },
  { weight: 1, arbitrary: fc.array(weirdString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(weirdKey, weirdString, { maxKeys: 3 }) },
);
