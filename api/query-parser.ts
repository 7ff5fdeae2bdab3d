import { Errors } from '../lib/errors.ts';

export type ParsedQuery = Record<string, string | string[]>;

/**
 * Decodes one name or value: `+` is a space, then percent-decoding that must yield UTF-8.
 * @throws URIError for a malformed escape (`%ZZ`, `%E0%A4%A`) or bytes that are not UTF-8 (`%FF`, `%ED%A0%80`).
 */
function decode(s: string): string {
  const spaced = s.includes('+') ? s.replaceAll('+', ' ') : s;
  return spaced.includes('%') ? decodeURIComponent(spaced) : spaced;
}

/**
 * Express's `query parser` (set in app.ts): `node:querystring`'s shape (repeated names give arrays, a
 * name without `=` has the value ""), but strict. `node:querystring` keeps a malformed escape as
 * typed and turns bytes that are not UTF-8 into U+FFFD, so a filter would silently compare something
 * the client did not send; here either is a 400 naming the parameter. Express calls this when
 * `req.query` is first read (the route chain, for routes that take a query).
 * @throws ProblemError 400 request.validation_failed at `query.<name>`.
 */
export function parseQuery(qs: string | null | undefined): ParsedQuery {
  // No prototype: a parameter named `__proto__` or `constructor` is just a name (as in node:querystring).
  const out: ParsedQuery = Object.create(null);
  if (!qs) return out;
  for (const pair of qs.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    let name: string, value: string;
    try {
      name = decode(rawName);
    } catch {
      throw Errors.validationFailed([{ path: `query.${rawName}`, message: 'the name is not percent-encoded UTF-8' }]);
    }
    try {
      value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    } catch {
      throw Errors.validationFailed([{ path: `query.${name}`, message: 'must be percent-encoded UTF-8' }]);
    }
    const seen = out[name];
    if (seen === undefined) out[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else out[name] = [seen, value];
  }
  return out;
}
