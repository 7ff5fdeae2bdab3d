/**
 * Sending a page or an asset of ours (the API reference at `/docs`, the dashboard at `/dashboard`):
 * one place that sets the headers every such file carries, so the two cannot drift apart.
 */
import type { Response } from 'express';

/** `Cache-Control` of an asset whose URL changes with its content: cached for a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** `Cache-Control` of a page: kept, but revalidated on every load (it names the current assets). */
export const REVALIDATE = 'no-cache';
/** `Cache-Control` of an answer that depends on the configuration of the moment: never kept. */
export const NO_STORE = 'no-store';

/** A file to send: its media type, its `Cache-Control`, and for a page its Content-Security-Policy. */
export interface StaticFile {
  /** The media type, with `; charset=utf-8` for text. */
  type: string;
  cache: typeof IMMUTABLE | typeof REVALIDATE | typeof NO_STORE;
  body: string | Buffer;
  /** The page's Content-Security-Policy (pages only: an asset runs under the policy of its page). */
  policy?: string;
}

/**
 * A page's Content-Security-Policy: everything from this origin only — no plugin, no `<base>`, no
 * form posting, no framing, `data:` images (icons drawn in CSS) — plus the extra script, style and
 * connect sources a page strictly needs (an inline script's hash, inline styles, an SSO issuer).
 */
export function selfOnlyPolicy(
  extra: { script?: readonly string[]; style?: readonly string[]; connect?: readonly string[] } = {},
): string {
  return [
    "default-src 'none'",
    ["script-src 'self'", ...(extra.script ?? [])].join(' '),
    ["style-src 'self'", ...(extra.style ?? [])].join(' '),
    "img-src 'self' data:",
    ["connect-src 'self'", ...(extra.connect ?? [])].join(' '),
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Sends `file` with its type and cache lifetime, and the headers no file of ours goes without: no
 * sniffing another type (`nosniff`), no `Referer` sent from our pages, and no framing by another site.
 */
export function sendStatic(res: Response, file: StaticFile): void {
  res.type(file.type).set({
    'Cache-Control': file.cache,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  });
  if (file.policy) res.set('Content-Security-Policy', file.policy);
  res.send(file.body);
}
