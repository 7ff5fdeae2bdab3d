import { z } from 'zod';
import { ANALYTICS_BUCKET_NAMES } from '../../../services/analytics.ts';
import { instant, windowInOrder } from '../../fields.ts';

/** Every analytics query: `since` (inclusive) and `until` (exclusive), both required, in order. */
const window = z.strictObject({ since: instant, until: instant });
const inOrder = { path: ['until'], message: 'must be after since' };

export const windowQuery = window.refine(windowInOrder, inOrder);

export const bucketedQuery = window.extend({ bucket: z.enum(ANALYTICS_BUCKET_NAMES) }).refine(windowInOrder, inOrder);

/** Top detectors: `limit` 1–50, default 10. */
export const topDetectorsQuery = window
  .extend({ limit: z.coerce.number().int().min(1).max(50).default(10) })
  .refine(windowInOrder, inOrder);
