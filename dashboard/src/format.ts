/** How the dashboard shows values: dates in this browser's locale and time zone, durations in ms. */

/** A date-time as this browser's locale shows it, or `fallback` when there is none. */
export const when = (iso: string | null | undefined, fallback = ''): string =>
  iso ? new Date(iso).toLocaleString() : fallback;

/** A duration in whole milliseconds (`12 ms`), or `fallback` when there is none. */
export const millis = (ms: number | null | undefined, fallback = ''): string =>
  ms === null || ms === undefined ? fallback : `${Math.round(ms)} ms`;

/** A share (0..1) as a percentage with one decimal (`12.5%`). */
export const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;
