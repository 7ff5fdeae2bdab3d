import type { PresignedUpload } from '../../../services/evidence/storage.ts';
import type { EvidenceUploadRow } from '../../../store/evidence.ts';
import { iso } from '../../present.ts';

/** An evidence upload's state (the upload and `:complete` answers). */
export function presentEvidenceUpload(u: EvidenceUploadRow) {
  return {
    storage_key: u.storage_key,
    kind: u.kind,
    sha256: u.sha256,
    size_bytes: u.size_bytes,
    expires_at: iso(u.expires_at),
    verified_at: u.verified_at ? iso(u.verified_at) : null,
    created_at: iso(u.created_at),
  };
}

/** The create answer: the spec's `{storage_key, expires_at}` plus where and how to send the bytes. */
export function presentCreatedUpload(u: EvidenceUploadRow, p: PresignedUpload) {
  return {
    storage_key: u.storage_key,
    expires_at: iso(u.expires_at),
    upload_url: p.url,
    upload_method: p.method,
    upload_headers: p.headers,
  };
}
