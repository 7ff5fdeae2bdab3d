/** Helpers shared by the route presenters. */

/** An instant as the API writes it (RFC 3339, UTC), or null; accepts what pg returns and what `to_jsonb` rows carry. */
export const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());
