import { z } from 'zod';
import type { CreateAnalysisInput } from '../../../services/legacy-analyses.ts';
import { pageQuery } from '../../pagination.ts';

/** The bounds of docs/api.md (Legacy analysis sessions). */
export const LEGACY_ANALYSIS_LIMITS = { name: 255, description: 1000 } as const;

/** The largest analysis id (a PostgreSQL integer). */
export const MAX_ANALYSIS_ID = 2_147_483_647;

const L = LEGACY_ANALYSIS_LIMITS;

export const createAnalysisBody = z.strictObject({
  name: z.string().min(1, `must be 1 to ${L.name} characters`).max(L.name, `must be 1 to ${L.name} characters`),
  description: z.string().max(L.description, `must be at most ${L.description} characters`).nullable().optional(),
}) satisfies z.ZodType<CreateAnalysisInput>;

/** An analysis id as a path carries it: a positive integer in decimal, no sign, no leading zero. */
export const analysisIdParams = z.object({
  analysis_id: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, `must be an integer from 1 to ${MAX_ANALYSIS_ID}`)
    .transform(Number)
    .refine((n) => n <= MAX_ANALYSIS_ID, `must be an integer from 1 to ${MAX_ANALYSIS_ID}`),
});

export const listAnalysesQuery = pageQuery;

/** The list's keyset position: the last analysis id of the page (ids decrease down the list). */
export const analysisCursor = z.object({ before: z.number().int().min(1).max(MAX_ANALYSIS_ID) });
