/** How the dashboard shows values: dates in this browser's locale and time zone, durations in ms. */

/** A date-time as this browser's locale shows it, or `fallback` when there is none. */
export const when = (iso: string | null | undefined, fallback = ''): string =>
  iso ? new Date(iso).toLocaleString() : fallback;

/** A duration in whole milliseconds (`12 ms`), or `fallback` when there is none. */
export const millis = (ms: number | null | undefined, fallback = ''): string =>
  ms === null || ms === undefined ? fallback : `${Math.round(ms)} ms`;

/** A share (0..1) as a percentage with one decimal (`12.5%`). */
export const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

/**
 * An instant as a `datetime-local` field holds it: this browser's wall clock, to the minute ('' for
 * none).
 */
export function localInput(at: string | Date | undefined): string {
  if (at === undefined) return '';
  const date = new Date(at);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A `datetime-local` field's value (this browser's time zone) as an RFC 3339 instant (none when blank). */
export const instant = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);
