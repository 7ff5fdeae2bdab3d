import { z } from 'zod';
import type { CreateEvidenceUploadInput } from '../../../services/evidence/uploads.ts';
import { instant, nullableInstant, resource } from '../../resources.ts';

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
export const uploadContentQuery = z.strictObject({
  org: z.string().default(''),
  expires: z.string().default(''),
  signature: z.string().default(''),
});

/** An evidence upload's state: the answer of the upload URL and of `:complete`. */
export const EvidenceUpload = resource(
  'EvidenceUpload',
  z.object({
    storage_key: z.string().describe('`ev_` + 33 base62 characters: what a labeled event references.'),
    kind: z.string(),
    sha256: z.string().describe('The declared SHA-256, 64 lowercase hex characters.'),
    size_bytes: z.int().min(1).max(MAX_EVIDENCE_BYTES),
    expires_at: instant.describe('When the upload URL stops being accepted.'),
    verified_at: nullableInstant.describe(
      'When the bytes were checked against size and SHA-256; null until then. Only a verified key may be referenced.',
    ),
    created_at: instant,
  }),
  'An evidence upload: what was declared, and whether the bytes were verified.',
);

/** `POST /v1/evidence-uploads`'s answer: the key and where and how to send the bytes. */
export const EvidenceUploadCreated = resource(
  'EvidenceUploadCreated',
  z.object({
    storage_key: z.string().describe('`ev_` + 33 base62 characters.'),
    expires_at: instant.describe('The upload URL is refused from then on (410 `evidence.upload_expired`).'),
    upload_url: z
      .string()
      .describe('The presigned URL to send the bytes to: this API (`PUT …/content`) or an S3 bucket.'),
    upload_method: z.literal('PUT'),
    upload_headers: z
      .record(z.string(), z.string())
      .describe('Headers the upload request must carry exactly (the signature covers them).'),
  }),
  'A declared evidence upload and its presigned upload URL.',
);
