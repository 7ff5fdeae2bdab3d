/**
 * Benign machine-looking text for FITTING pi-suffix (the character LM of benign text): JSON, minified and
 * ordinary JavaScript, CSV, access logs, shell lines, stack traces. The dataset's benign side is mostly
 * prose, so without these a prompt that pastes data or code reads as "surprising" as token soup. A grammar
 * of its own: the validation set (`suffix-attacks.ts`) builds its noise from other templates, keys and
 * identifiers, so validation measures how this generalises, not what it memorised.
 */
import { mulberry32, pick, type Rng } from '../prng.ts';

const KEYS = [
  'id',
  'name',
  'email',
  'created_at',
  'status',
  'amount',
  'currency',
  'items',
  'metadata',
  'version',
  'enabled',
  'region',
  'owner',
  'price',
  'quantity',
  'type',
  'url',
  'label',
  'score',
  'updatedAt',
  'userId',
  'orderId',
  'description',
  'tags',
];
const WORDS = [
  'alpha',
  'beta',
  'pending',
  'active',
  'closed',
  'eu-west',
  'us-east',
  'admin',
  'guest',
  'draft',
  'primary',
  'invoice',
  'shipment',
  'report',
  'default',
  'error',
  'warning',
  'success',
];
const IDENTS = [
  'el',
  'ctx',
  'state',
  'props',
  'value',
  'index',
  'list',
  'key',
  'cb',
  'fn',
  'args',
  'obj',
  'arr',
  'str',
  'len',
  'tmp',
  'out',
  'err',
  'evt',
  'node',
];

const int = (rng: Rng, n: number): number => Math.floor(rng() * n);
const letters = 'abcdefghijklmnopqrstuvwxyz';

function jsonValue(rng: Rng, depth: number): unknown {
  const r = rng();
  if (depth < 2 && r < 0.15) return Array.from({ length: 1 + int(rng, 4) }, () => jsonValue(rng, depth + 1));
  if (depth < 2 && r < 0.3) return jsonObject(rng, depth + 1);
  if (r < 0.55) return int(rng, 10 ** (1 + int(rng, 6)));
  if (r < 0.65) return Math.round(rng() * 10_000) / 100;
  if (r < 0.75) return rng() < 0.5;
  if (r < 0.8) return null;
  return pick(WORDS, rng) + (rng() < 0.3 ? `-${int(rng, 1000)}` : '');
}

function jsonObject(rng: Rng, depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = 0, n = 2 + int(rng, 6); i < n; i++) o[pick(KEYS, rng)] = jsonValue(rng, depth);
  return o;
}

/** A random JavaScript statement; `short` uses one-letter names (minifier output). */
function statement(rng: Rng, short: boolean, depth = 0): string {
  const id = (): string => (short ? letters[int(rng, 26)]! : pick(IDENTS, rng));
  const expr = (): string =>
    pick(
      [
        () => `${id()}.${id()}(${id()},${int(rng, 100)})`,
        () => `${id()}[${id()}]`,
        () => `${id()}+${int(rng, 10)}`,
        () => `${id()}&&${id()}.${pick(['length', 'value', 'type'], rng)}`,
        () => `"${pick(WORDS, rng)}"`,
        () => `${id()}===${id()}?${id()}:${int(rng, 2)}`,
        () => `function(${id()}){return ${id()}*${int(rng, 9)}}`,
      ],
      rng,
    )();
  const sp = short ? '' : ' ';
  const r = rng();
  if (depth < 2 && r < 0.2)
    return `if(${expr()})${sp}{${statement(rng, short, depth + 1)}${statement(rng, short, depth + 1)}}`;
  if (depth < 2 && r < 0.3)
    return `for(var ${id()}=0;${id()}<${id()}.length;${id()}++)${sp}{${statement(rng, short, depth + 1)}}`;
  if (r < 0.6) return `var ${id()}${sp}=${sp}${expr()};`;
  if (r < 0.8) return `${id()}.${id()}${sp}=${sp}${expr()};`;
  return `return ${expr()};`;
}

function jsBlock(rng: Rng, short: boolean): string {
  const body = Array.from({ length: 3 + int(rng, 6) }, () => statement(rng, short)).join(short ? '' : '\n  ');
  return short
    ? `!function(${letters[int(rng, 26)]},${letters[int(rng, 26)]}){${body}}(this,${pick(['window', 'module', 'self'], rng)});`
    : `function ${pick(IDENTS, rng)}(${pick(IDENTS, rng)}) {\n  ${body}\n}`;
}

function csv(rng: Rng): string {
  const cols = Array.from({ length: 3 + int(rng, 4) }, () => pick(KEYS, rng));
  const rows = Array.from({ length: 3 + int(rng, 6) }, () =>
    cols.map(() => (rng() < 0.6 ? String(int(rng, 100_000)) : pick(WORDS, rng))).join(','),
  );
  return [cols.join(','), ...rows].join('\n');
}

function accessLog(rng: Rng): string {
  return Array.from(
    { length: 2 + int(rng, 4) },
    () =>
      `10.${int(rng, 255)}.${int(rng, 255)}.${int(rng, 255)} - - [${10 + int(rng, 18)}/Mar/2024:${10 + int(rng, 13)}:${10 + int(rng, 49)}:${10 + int(rng, 49)} +0000] "${pick(['GET', 'POST', 'PUT'], rng)} /${pick(WORDS, rng)}/${int(rng, 9999)} HTTP/1.1" ${pick([200, 201, 304, 404, 500], rng)} ${int(rng, 50_000)}`,
  ).join('\n');
}

function shell(rng: Rng): string {
  return pick(
    [
      () => `$ ls -la /var/log/${pick(WORDS, rng)} | grep -v ${pick(WORDS, rng)} | wc -l`,
      () => `$ docker run --rm -p ${int(rng, 9000)}:80 -e MODE=${pick(WORDS, rng)} nginx:1.${int(rng, 27)}`,
      () => `$ git log --oneline -n ${int(rng, 50)} -- src/${pick(IDENTS, rng)}.ts`,
      () =>
        `$ curl -sS -X POST -H 'Content-Type: application/json' -d '{"${pick(KEYS, rng)}":${int(rng, 99)}}' localhost:${int(rng, 9000)}/api`,
    ],
    rng,
  )();
}

function stackTrace(rng: Rng): string {
  return [
    `TypeError: Cannot read properties of undefined (reading '${pick(IDENTS, rng)}')`,
    ...Array.from(
      { length: 2 + int(rng, 4) },
      () => `    at ${pick(IDENTS, rng)} (/app/src/${pick(IDENTS, rng)}.js:${int(rng, 400)}:${int(rng, 80)})`,
    ),
  ].join('\n');
}

/** `n` seeded benign machine-text samples. */
export function benignNoise(n: number, seed = 4242): string[] {
  const rng = mulberry32(seed);
  const makers = [
    () => JSON.stringify(jsonObject(rng), null, rng() < 0.5 ? 2 : undefined),
    () => jsBlock(rng, true),
    () => jsBlock(rng, false),
    () => csv(rng),
    () => accessLog(rng),
    () => shell(rng),
    () => stackTrace(rng),
  ];
  return Array.from({ length: n }, (_, i) => makers[i % makers.length]!());
}
