import { z } from 'zod';
import type { CursorCodec } from '../lib/cursor.ts';
import { Errors } from '../lib/errors.ts';

/** `cursor` and `limit` (1–`maxLimit`, default 50), for a list whose spec allows larger pages (audit: 10,000). */
export function pageQueryUpTo(maxLimit: number) {
  return z
    .object({
      cursor: z.string().min(1).max(2048).optional(),
      limit: z.coerce.number().int().min(1).max(maxLimit).default(50),
    })
    .strict();
}

/** `cursor` and `limit` (1–200, default 50) of every list endpoint. */
export const pageQuery = pageQueryUpTo(200);

export type PageQuery = z.infer<typeof pageQuery>;

/**
 * A signed cursor's payload, read against `shape` (a keyset position, an offset).
 * @throws ProblemError 400 `<list>.invalid_cursor` for a tampered, foreign or malformed cursor, or one
 * whose payload is not of that shape.
 */
export function readCursor<T>(
  codec: CursorCodec,
  list: string,
  orgId: string,
  cursor: string | undefined,
  shape: z.ZodType<T>,
): T | undefined {
  if (cursor === undefined) return undefined;
  const parsed = shape.safeParse(codec.decode(list, orgId, cursor));
  if (!parsed.success) throw Errors.invalidCursor(list);
  return parsed.data;
}

const idPosition = z.object({ before: z.string() });

/**
 * Keyset position of a list ordered by id descending, read from a signed cursor.
 * @throws ProblemError 400 `<list>.invalid_cursor` for a tampered, foreign or malformed cursor.
 */
export function readIdCursor(
  codec: CursorCodec,
  list: string,
  orgId: string,
  cursor: string | undefined,
): string | undefined {
  return readCursor(codec, list, orgId, cursor, idPosition)?.before;
}

/** `{data, next_cursor}`; `next_cursor` is null on the last page. */
export function page<T>(
  codec: CursorCodec,
  list: string,
  orgId: string,
  data: T[],
  lastId: string | undefined,
  more: boolean,
) {
  return { data, next_cursor: more && lastId ? codec.encode(list, orgId, { before: lastId }) : null };
}
