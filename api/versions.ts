/**
 * Dated revisions of the v1 API, oldest first. A request may pin any of them, or any later date
 * (it gets the newest revision on or before that date); no header means the latest.
 */
export const API_VERSIONS = ['2026-11-01'] as const;

export const LATEST_API_VERSION = API_VERSIONS[API_VERSIONS.length - 1]!;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `value` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

/** The revision a pinned date resolves to, or null when the date predates every revision. */
export function resolveApiVersion(pinned: string): string | null {
  let chosen: string | null = null;
  for (const v of API_VERSIONS) if (v <= pinned) chosen = v;
  return chosen;
}
