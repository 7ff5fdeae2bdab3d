/**
 * What JSON.parse accepts but does not keep: a name given twice in one object (it keeps the last one;
 * RFC 8259 §4 leaves duplicates to the parser), the name `__proto__` (an own property after
 * JSON.parse, but the copies that validation and storage make assign it, which sets a prototype
 * instead: the entry vanishes), and numbers a binary64 cannot hold (1e400 becomes Infinity and is
 * stored as null; a 30-digit integer is rounded; 1e-400 becomes 0). The route chain (api/route.ts)
 * reads a body's raw text with `jsonTextIssue` before validation, so each is a 400 naming its path
 * instead of a value other than the one sent. docs/api.md, Request body, has the rules.
 */

/** Which rule a body broke: its problem's code is `request.<flaw>`. */
export type JsonTextFlaw = 'duplicate_key' | 'forbidden_key' | 'number_out_of_range';

export interface JsonTextIssue {
  flaw: JsonTextFlaw;
  /** Dotted from the body root, as validation issues are (`tokens_used.prompt`, `rules.0.id`). */
  path: string;
  message: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
// `.`, `e`, `E`: a number with a fraction or an exponent (`+` and `-` only follow an exponent or lead).
const isFractionOrExponent = (c: number) => c === 0x2e || c === 0x65 || c === 0x45;
const isNumberByte = (c: number) => isDigit(c) || isFractionOrExponent(c) || c === MINUS || c === 0x2b;

/** An object (its names so far, `at` the current one) or an array (`at` the current index). */
interface Frame {
  names: Set<string> | null;
  at: string | number;
}

/**
 * The first flaw of a JSON text that JSON.parse has accepted (in document order), or null. Numbers
 * under a top-level name in `lenient` (a scan's `content`: text being scanned, not a value the
 * service keeps or acts on) are read as JSON.parse reads them; duplicate and `__proto__` names are
 * refused everywhere, since content validation would not see the dropped entries either.
 * Iterative, so nesting as deep as JSON.parse accepts costs no stack.
 */
export function jsonTextIssue(raw: Buffer, lenient?: ReadonlySet<string>): JsonTextIssue | null {
  const stack: Frame[] = [];
  const path = () => stack.map((f) => f.at).join('.');
  let nameNext = false;
  // A UTF-8 byte order mark, which the body parser skips too.
  let i = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
  while (i < raw.length) {
    const c = raw[i]!;
    if (c === QUOTE) {
      const end = closingQuote(raw, i);
      if (nameNext) {
        const top = stack.at(-1)!;
        const name = nameText(raw, i, end);
        top.at = name;
        if (name === '__proto__')
          return {
            flaw: 'forbidden_key',
            path: path(),
            message: 'the name __proto__ is not accepted (JavaScript would take it for the prototype)',
          };
        if (top.names!.has(name))
          return { flaw: 'duplicate_key', path: path(), message: 'this name is given more than once in its object' };
        top.names!.add(name);
        nameNext = false;
      }
      i = end + 1;
    } else if (c === MINUS || isDigit(c)) {
      let real = false;
      let j = i + 1;
      for (; j < raw.length && isNumberByte(raw[j]!); j++) real ||= isFractionOrExponent(raw[j]!);
      const root = stack[0];
      const lenientHere = root?.names && lenient?.has(root.at as string);
      const message = lenientHere ? null : numberFlaw(raw.toString('latin1', i, j), real);
      if (message) return { flaw: 'number_out_of_range', path: path(), message };
      i = j;
    } else {
      if (c === OPEN_OBJECT) {
        stack.push({ names: new Set(), at: '' });
        nameNext = true;
      } else if (c === OPEN_ARRAY) stack.push({ names: null, at: 0 });
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        stack.pop();
        nameNext = false;
      } else if (c === COMMA) {
        const top = stack.at(-1)!;
        if (top.names) nameNext = true;
        else top.at = (top.at as number) + 1;
      }
      i++;
    }
  }
  return null;
}

/** The index of the quote that closes the string opening at `open`: the next one not escaped. */
function closingQuote(raw: Buffer, open: number): number {
  for (let q = raw.indexOf(QUOTE, open + 1); q >= 0; q = raw.indexOf(QUOTE, q + 1)) {
    let backslashes = 0;
    for (let k = q - 1; raw[k] === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
  }
  return raw.length;
}

/** A name as JSON.parse reads it (escapes decoded, so `"a"` and `"\u0061"` are one name). */
function nameText(raw: Buffer, open: number, close: number): string {
  const inner = raw.subarray(open + 1, close);
  return inner.includes(BACKSLASH) ? (JSON.parse(raw.toString('utf8', open, close + 1)) as string) : inner.toString();
}

const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * Why a number literal would not keep its value, or null. An integer literal must be exact: within
 * ±(2^53 − 1). One with a fraction or exponent is rounded to the nearest binary64, as RFC 8259 §6
 * expects, but not to ±Infinity nor, from a nonzero literal, to 0.
 */
function numberFlaw(text: string, real: boolean): string | null {
  const value = Number(text);
  if (!Number.isFinite(value))
    return `${shown(text)} is beyond the range of a double-precision number (about ±1.8e308)`;
  if (!real)
    return Number.isSafeInteger(value)
      ? null
      : `the integer ${shown(text)} is beyond ±9007199254740991 (2^53 − 1), past which integers are not kept exactly`;
  if (value === 0 && /[1-9]/.test(text.split(/[eE]/)[0]!))
    return `${shown(text)} is too small for a double-precision number: it would be read as 0`;
  return null;
}
