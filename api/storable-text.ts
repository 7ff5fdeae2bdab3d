/// <reference lib="es2024.string" />
// isWellFormed / toWellFormed: Node 20 has them; the project's ES2022 lib does not declare them.
import type { ValidationIssue } from '../lib/errors.ts';

/**
 * Text PostgreSQL cannot store as sent: U+0000 (text and jsonb refuse it) and lone UTF-16
 * surrogates (jsonb refuses an unpaired `\uD800` escape; text silently turns it into U+FFFD, so what
 * is stored would differ from what was validated). The route chain (api/route.ts) checks every
 * string of a request's path, query and body with these, in one pass, before validation.
 */

const NUL = 'must not contain the NUL character (U+0000)';
const LONE_SURROGATE = 'must not contain a lone UTF-16 surrogate (an unpaired \\uD800–\\uDFFF escape)';

/** Why `s` cannot be stored as is, or null. */
function flawOf(s: string): string | null {
  if (s.includes('\0')) return NUL;
  return s.isWellFormed() ? null : LONE_SURROGATE;
}

// JSON carries U+0000 only as `\u0000`, and a lone surrogate only as a `\uD800`–`\uDFFF` escape: raw
// UTF-8 bytes of a surrogate are invalid UTF-8 and decode to U+FFFD (the body is UTF-8 only, body.ts).
// A body without these bytes needs no walk; `\ud` also starts ordinary escapes (U+D000–U+D7FF), which
// only costs a walk.
const ESCAPES = ['\\u0000', '\\ud', '\\uD'].map((s) => Buffer.from(s));

/** Whether a raw JSON body may hold a string PostgreSQL cannot store (false: certainly not). */
export function mayHoldUnstorable(raw: Buffer): boolean {
  return ESCAPES.some((e) => raw.includes(e));
}

/**
 * The first string or object key in `value` (depth first, in order) that PostgreSQL cannot store,
 * with its dotted path under `path`; null if there is none. Top-level keys in `skip` are not looked at.
 * Iterative: JSON.parse accepts nesting far deeper than a recursive walk's stack.
 */
export function unstorableIssue(value: unknown, path: string, skip?: ReadonlySet<string>): ValidationIssue | null {
  // Each entry is a value and its path; `key` is the object key that leads to it, checked just before it.
  const stack: { v: unknown; path: string; key?: string }[] = [{ v: value, path }];
  for (let e = stack.pop(); e; e = stack.pop()) {
    const keyFlaw = e.key === undefined ? null : flawOf(e.key);
    if (keyFlaw) return { path: e.path, message: keyFlaw };
    if (typeof e.v === 'string') {
      const message = flawOf(e.v);
      if (message) return { path: e.path, message };
      continue;
    }
    if (e.v === null || typeof e.v !== 'object') continue;
    const entries = Object.entries(e.v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i]!;
      if (e.v === value && skip?.has(k)) continue;
      stack.push({ v, path: e.path ? `${e.path}.${k}` : k, key: k });
    }
  }
  return null;
}

/** One string made storable: U+0000 and each lone surrogate → U+FFFD, one UTF-16 unit for one. */
export function storableString(s: string): string {
  const t = s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s;
  return t.isWellFormed() ? t : t.toWellFormed();
}

/**
 * `value` with each U+0000 and lone surrogate in its strings and keys replaced by U+FFFD: one UTF-16
 * unit for one, so character offsets into the text stay valid. A copy, built without recursion (see
 * `unstorableIssue`); keys keep their order.
 */
export function storableText<T>(value: T): T {
  const root: Record<string, unknown> = {};
  const stack: { v: unknown; into: Record<string, unknown> | unknown[]; at: string | number }[] = [
    { v: value, into: root, at: 'v' },
  ];
  for (let e = stack.pop(); e; e = stack.pop()) {
    const { v, into, at } = e;
    let out: unknown = v;
    if (typeof v === 'string') out = storableString(v);
    else if (Array.isArray(v)) {
      const copy: unknown[] = new Array(v.length);
      v.forEach((x, i) => stack.push({ v: x, into: copy, at: i }));
      out = copy;
    } else if (v !== null && typeof v === 'object') {
      const copy: Record<string, unknown> = {};
      // Keys are defined now, in order (values land later); defineProperty keeps a `__proto__` key a key.
      for (const [k, x] of Object.entries(v)) {
        const key = storableString(k);
        Object.defineProperty(copy, key, { value: undefined, enumerable: true, writable: true, configurable: true });
        stack.push({ v: x, into: copy, at: key });
      }
      out = copy;
    }
    if (Array.isArray(into)) into[at as number] = out;
    else Object.defineProperty(into, at, { value: out, enumerable: true, writable: true, configurable: true });
  }
  return root.v as T;
}
