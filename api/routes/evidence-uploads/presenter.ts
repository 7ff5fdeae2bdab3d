import type { PresignedUpload } from '../../../services/evidence/storage.ts';
import type { EvidenceUploadRow } from '../../../store/evidence.ts';
import type { z } from 'zod';
import type { EvidenceUpload, EvidenceUploadCreated } from './schema.ts';

/** An evidence upload's state (the upload and `:complete` answers). */
export function presentEvidenceUpload(u: EvidenceUploadRow): z.output<typeof EvidenceUpload> {
  return {
    storage_key: u.storage_key,
    kind: u.kind,
    sha256: u.sha256,
    size_bytes: u.size_bytes,
    expires_at: u.expires_at.toISOString(),
    verified_at: u.verified_at ? u.verified_at.toISOString() : null,
    created_at: u.created_at.toISOString(),
  };
}

/** The create answer: the spec's `{storage_key, expires_at}` plus where and how to send the bytes. */
export function presentCreatedUpload(u: EvidenceUploadRow, p: PresignedUpload): z.output<typeof EvidenceUploadCreated> {
  return {
    storage_key: u.storage_key,
    expires_at: u.expires_at.toISOString(),
    upload_url: p.url,
    upload_method: p.method,
    upload_headers: p.headers,
  };
}
