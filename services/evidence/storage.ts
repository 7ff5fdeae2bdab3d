/**
 * Where evidence bytes live, behind one interface: the local filesystem under DATA_DIR (default) or
 * an S3-compatible bucket. A backend presigns an upload pinned to a SHA-256 and a size, and verifies
 * what was stored before the upload is marked verified (docs/evidence.md).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/** One upload as the backends see it. */
export interface UploadTarget {
  orgId: string;
  key: string;
  /** 64 lowercase hex. */
  sha256: string;
  sizeBytes: number;
  expiresAt: Date;
}

/** What the caller sends the bytes to: `method` `url` with `headers`, Content-Length = size_bytes. */
export interface PresignedUpload {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
}

/** The stored object checked against its declaration. */
export type VerifyOutcome = 'verified' | 'missing' | 'size_mismatch' | 'checksum_mismatch';

export interface EvidenceStorage {
  readonly backend: 'local' | 's3';
  /** A time-bounded upload for `t` (valid until `t.expiresAt`). */
  presignUpload(t: UploadTarget, now: Date): Promise<PresignedUpload>;
  /** Reads the stored object back (streaming) and checks its size and SHA-256. */
  verify(t: UploadTarget): Promise<VerifyOutcome>;
  /** Removes one object, if there is one (an abandoned upload). */
  remove(t: Pick<UploadTarget, 'orgId' | 'key'>): Promise<void>;
  /** Removes every object of an organization (organization deletion). */
  removeOrg(orgId: string): Promise<void>;
}

/** Size and SHA-256 of a stream, read chunk by chunk; stops early (size_mismatch) once it passes `limit`. */
export async function digestStream(
  stream: AsyncIterable<Buffer | Uint8Array> & Partial<Pick<Readable, 'destroy'>>,
  limit: number,
): Promise<{ size: number; sha256: string } | 'size_mismatch'> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) return 'size_mismatch';
    hash.update(chunk);
  }
  return { size, sha256: hash.digest('hex') };
}

/** The outcome of comparing a digest with the declaration. */
export function compareDigest(d: { size: number; sha256: string } | 'size_mismatch', t: UploadTarget): VerifyOutcome {
  if (d === 'size_mismatch' || d.size !== t.sizeBytes) return 'size_mismatch';
  return d.sha256 === t.sha256 ? 'verified' : 'checksum_mismatch';
}
