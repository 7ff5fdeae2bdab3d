import { z } from 'zod';

/** Zod fields shared by the route schemas, so one rule reads the same everywhere. */

/** A context or filter string: 1 to 255 characters. */
export const shortString = z.string().min(1, 'must be 1 to 255 characters').max(255, 'must be 1 to 255 characters');

/** An RFC 3339 date-time with an offset, as a Date. */
export const instant = z.iso
  .datetime({ offset: true, message: 'must be an RFC 3339 date-time' })
  .transform((s) => new Date(s));

/** The `since` < `until` check of a time window (`since` inclusive, `until` exclusive). */
export const windowInOrder = (q: { since?: Date | undefined; until?: Date | undefined }) =>
  !(q.since && q.until && q.since >= q.until);

/** The body of a POST that takes none (revoke, rotate, accept, complete): an empty object is tolerated. */
export const emptyBody = z.strictObject({});

/** The query of a route that takes no parameters: any parameter is a 400 naming it. */
export const noQuery = z.strictObject({});

/**
 * An instant inside a signed keyset cursor: the exact RFC 3339 text `Date#toISOString` wrote (any other
 * text is a cursor we did not mint), as a Date.
 */
export const cursorInstant = z
  .string()
  .refine((s) => {
    const d = new Date(s);
    return !Number.isNaN(d.getTime()) && d.toISOString() === s;
  })
  .transform((s) => new Date(s));
