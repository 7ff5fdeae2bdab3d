import { z } from 'zod';
import type { CreateEvidenceUploadInput } from '../../../services/evidence/uploads.ts';

/** The spec's Limits: `kind` 1–64 characters, SHA-256 as 64 lowercase hex, 1 to 104857600 bytes. */
export const MAX_EVIDENCE_BYTES = 104_857_600;

export const createEvidenceUploadBody = z.strictObject({
  kind: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'),
  size_bytes: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_EVIDENCE_BYTES, `must be at most ${MAX_EVIDENCE_BYTES}`),
}) satisfies z.ZodType<CreateEvidenceUploadInput>;

/**
 * Any string: a key of the wrong shape answers like an unknown one (404 on `:complete`, 403
 * `evidence.signature_invalid` on the upload URL).
 */
export const storageKeyParams = z.object({ storage_key: z.string() });

/** The upload URL's signed query; a missing or altered part fails the signature check (403). */
export const uploadContentQuery = z.object({
  org: z.string().default(''),
  expires: z.string().default(''),
  signature: z.string().default(''),
});
