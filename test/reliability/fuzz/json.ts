/**
 * The JSON the fuzz sends: leaves that print short in a counterexample and serialize to exact JSON
 * text (numbers JSON.stringify cannot write, 10,000-level nesting, long strings), and single-point
 * mutations of a valid body (replace, delete, add, wrap, taint a string or key).
 */
import fc from 'fast-check';

/** JSON text placed verbatim (numbers JSON.stringify cannot write: -0, 1e400, 2**64 exactly). */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `raw(${this.text})`;
  }
}

/** `levels` nested arrays or objects: 10,000 levels is 20-50 KB of text. */
export class Deep {
  constructor(
    readonly shape: 'array' | 'object',
    readonly levels: number,
  ) {}
  get text(): string {
    return this.shape === 'array'
      ? '['.repeat(this.levels) + ']'.repeat(this.levels)
      : '{"a":'.repeat(this.levels) + '1' + '}'.repeat(this.levels);
  }
  [fc.toStringMethod](): string {
    return `deep(${this.shape}×${this.levels})`;
  }
}

/** A string of `length` copies of `unit`. */
export class Long {
  constructor(
    readonly unit: string,
    readonly length: number,
  ) {}
  get value(): string {
    return this.unit.repeat(this.length);
  }
  [fc.toStringMethod](): string {
    return `long(${JSON.stringify(this.unit)}×${this.length})`;
  }
}

export type Json = null | boolean | number | string | RawJson | Deep | Long | Json[] | { [k: string]: Json };

/** JSON text of a body; JSON.stringify writes a lone surrogate as its `\udXXX` escape and NUL as `\u0000`. */
export function toText(v: Json): string {
  if (v instanceof RawJson || v instanceof Deep) return v.text;
  if (v instanceof Long) return JSON.stringify(v.value);
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * One change to a valid body at its `at`-th path: replace the node, delete it, add a key, wrap it in
 * an array, or `taint` the `at`-th string (or key) with `taint` — which keeps the body otherwise
 * valid, so lone surrogates and NUL reach the handlers and the store.
 */
export interface Mutation {
  at: number;
  op: 'replace' | 'delete' | 'add' | 'wrap' | 'taint';
  key: string;
  value: Json;
  taint: string;
}

export type Path = (string | number)[];

/** Every path inside a plain JSON value (the root included), depth first. */
export function pathsOf(v: Json, base: Path = [], out: Path[] = []): Path[] {
  out.push(base);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...base, i], out));
  else if (v !== null && typeof v === 'object' && !(v instanceof RawJson || v instanceof Deep || v instanceof Long)) {
    for (const [k, x] of Object.entries(v)) pathsOf(x, [...base, k], out);
  }
  return out;
}

function isObject(v: Json): v is { [k: string]: Json } {
  return (
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    !(v instanceof RawJson || v instanceof Deep || v instanceof Long)
  );
}

/** `v` with its `at`-th string value or key (modulo their number) tainted. */
function taint(v: Json, m: Mutation): Json {
  let n = 0;
  const total = countStrings(v);
  if (total === 0) return v;
  const target = m.at % total;
  const walk = (node: Json): Json => {
    if (typeof node === 'string') return n++ === target ? `${node}${m.taint}` : node;
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(node)) out[n++ === target ? `${k}${m.taint}` : k] = walk(x);
    return out;
  };
  return walk(v);
}

export function countStrings(v: Json): number {
  if (typeof v === 'string') return 1;
  if (Array.isArray(v)) return v.reduce<number>((s, x) => s + countStrings(x), 0);
  if (!isObject(v)) return 0;
  return Object.entries(v).reduce((s, [, x]) => s + 1 + countStrings(x), 0);
}

/** `v` with `m` applied at the m.at-th path (modulo their number). */
export function mutate(v: Json, m: Mutation): Json {
  if (m.op === 'taint') return taint(v, m);
  const paths = pathsOf(v);
  const path = paths[m.at % paths.length]!;
  const apply = (node: Json, rest: Path): Json => {
    if (rest.length === 0) {
      if (m.op === 'replace') return m.value;
      if (m.op === 'wrap') return [node];
      if (m.op === 'add' && isObject(node)) return { ...node, [m.key]: m.value };
      return node;
    }
    const [head, ...tail] = rest;
    if (tail.length === 0 && m.op === 'delete') {
      if (Array.isArray(node)) return node.filter((_x, i) => i !== head);
      if (isObject(node)) {
        const { [head as string]: _gone, ...kept } = node;
        return kept;
      }
    }
    if (Array.isArray(node)) return node.map((x, i) => (i === head ? apply(x, tail) : x));
    if (isObject(node)) return { ...node, [head as string]: apply(node[head as string]!, tail) };
    return node;
  };
  return apply(v, path);
}
