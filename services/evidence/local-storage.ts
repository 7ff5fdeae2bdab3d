/**
 * The default evidence backend: files under `${DATA_DIR}/evidence/<org_id>/<storage_key>`, uploaded to
 * this service's own signed URL (`PUT /v1/evidence-uploads/{storage_key}/content`). The HMAC signature
 * over (storage_key, org, sha256, size, expires) is the credential: no bearer token.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { hmacSha256, safeEqual } from '../../lib/crypto.ts';
import { Errors } from '../../lib/errors.ts';
import {
  compareDigest,
  digestStream,
  type EvidenceStorage,
  type PresignedUpload,
  type UploadTarget,
  type VerifyOutcome,
} from './storage.ts';

/** The signed query of an upload URL. */
export interface SignedQuery {
  org: string;
  expires: number;
  signature: string;
}

export class LocalEvidenceStorage implements EvidenceStorage {
  readonly backend = 'local' as const;

  constructor(
    /** `${DATA_DIR}/evidence` */
    private readonly root: string,
    private readonly publicUrl: string,
    private readonly signingKey: Buffer,
  ) {}

  private signature(t: UploadTarget, expires: number): Buffer {
    return hmacSha256(this.signingKey, [t.key, t.orgId, t.sha256, String(t.sizeBytes), String(expires)].join('\n'));
  }

  async presignUpload(t: UploadTarget): Promise<PresignedUpload> {
    const expires = Math.floor(t.expiresAt.getTime() / 1000);
    const query = new URLSearchParams({
      org: t.orgId,
      expires: String(expires),
      signature: this.signature(t, expires).toString('base64url'),
    });
    return {
      url: `${this.publicUrl}/v1/evidence-uploads/${encodeURIComponent(t.key)}/content?${query}`,
      method: 'PUT',
      headers: {},
    };
  }

  /** Whether `q` was signed for `t` (constant-time). */
  signatureValid(t: UploadTarget, q: SignedQuery): boolean {
    return safeEqual(this.signature(t, q.expires), Buffer.from(q.signature, 'base64url'));
  }

  private fileOf(orgId: string, key: string): string {
    return path.join(this.root, orgId, key);
  }

  /**
   * Streams `body` to a temporary file while hashing it (never buffered whole), stops as soon as it
   * passes the declared size, then renames it into place when size and SHA-256 match.
   */
  async receive(t: UploadTarget, body: Readable): Promise<VerifyOutcome> {
    const dir = path.join(this.root, t.orgId);
    await mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `.tmp-${t.key}-${randomBytes(6).toString('hex')}`);
    const file = createWriteStream(tmp, { flags: 'wx' });
    try {
      const digest = await writeHashed(body, file, t.sizeBytes);
      const outcome = compareDigest(digest, t);
      if (outcome !== 'verified') return outcome;
      await rename(tmp, this.fileOf(t.orgId, t.key));
      return outcome;
    } finally {
      file.destroy();
      await rm(tmp, { force: true });
    }
  }

  async verify(t: UploadTarget): Promise<VerifyOutcome> {
    const file = this.fileOf(t.orgId, t.key);
    const info = await stat(file).catch(() => null);
    if (!info) return 'missing';
    if (info.size !== t.sizeBytes) return 'size_mismatch';
    return compareDigest(await digestStream(createReadStream(file), t.sizeBytes), t);
  }

  async remove(t: Pick<UploadTarget, 'orgId' | 'key'>): Promise<void> {
    await rm(this.fileOf(t.orgId, t.key), { force: true });
  }

  async removeOrg(orgId: string): Promise<void> {
    await rm(path.join(this.root, orgId), { recursive: true, force: true });
  }
}

/**
 * Copies `body` into `file`, hashing it, with backpressure. On an overrun it stops reading at once
 * (the stream is paused, not destroyed, so the caller can still answer on the same connection).
 */
function writeHashed(
  body: Readable,
  file: Writable,
  limit: number,
): Promise<{ size: number; sha256: string } | 'size_mismatch'> {
  const hash = createHash('sha256');
  let size = 0;
  return new Promise((resolve, reject) => {
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        return resolve('size_mismatch');
      }
      hash.update(chunk);
      if (!file.write(chunk)) {
        body.pause();
        file.once('drain', () => body.resume());
      }
    };
    const onEnd = () => {
      file.end(() => resolve({ size, sha256: hash.digest('hex') }));
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', (err) => (stop(), reject(err)));
    body.once('aborted', () => (stop(), reject(Errors.badRequest('The upload was aborted before its end.'))));
    file.once('error', (err) => (stop(), reject(err)));
  });
}
