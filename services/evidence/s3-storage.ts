/**
 * The S3-compatible evidence backend (EVIDENCE_S3_*): a presigned PUT that signs Content-Length and
 * x-amz-checksum-sha256, so S3 itself refuses other bytes; since compatible servers may not enforce
 * checksums, `verify` reads the object back and checks it before the upload is marked verified.
 * Objects are keyed `<org_id>/<storage_key>`.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import {
  compareDigest,
  digestStream,
  type EvidenceStorage,
  type PresignedUpload,
  type UploadTarget,
  type VerifyOutcome,
} from './storage.ts';

export interface S3EvidenceOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

const CHECKSUM_HEADER = 'x-amz-checksum-sha256';

export class S3EvidenceStorage implements EvidenceStorage {
  readonly backend = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly o: S3EvidenceOptions) {
    this.client = new S3Client({
      region: o.region,
      endpoint: o.endpoint,
      forcePathStyle: o.forcePathStyle,
      credentials: o.credentials,
      // The SDK's default CRC32 request checksum would be fixed at signing time: we pin SHA-256 instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(t: Pick<UploadTarget, 'orgId' | 'key'>): string {
    return `${t.orgId}/${t.key}`;
  }

  async presignUpload(t: UploadTarget, now: Date): Promise<PresignedUpload> {
    const checksum = Buffer.from(t.sha256, 'hex').toString('base64');
    const command = new PutObjectCommand({
      Bucket: this.o.bucket,
      Key: this.objectKey(t),
      ContentLength: t.sizeBytes,
      ChecksumSHA256: checksum,
    });
    const expiresIn = Math.max(1, Math.floor((t.expiresAt.getTime() - now.getTime()) / 1000));
    const url = await getSignedUrl(this.client, command, {
      expiresIn,
      signingDate: now,
      // Kept as a signed header (not hoisted into the query): the uploader must send it, S3 checks it.
      unhoistableHeaders: new Set([CHECKSUM_HEADER]),
    });
    return { url, method: 'PUT', headers: { [CHECKSUM_HEADER]: checksum } };
  }

  async verify(t: UploadTarget): Promise<VerifyOutcome> {
    let body: Readable;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: this.objectKey(t) }));
      if (out.ContentLength !== undefined && out.ContentLength !== t.sizeBytes) {
        (out.Body as Readable | undefined)?.destroy();
        return this.discard(t, 'size_mismatch');
      }
      body = out.Body as Readable;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return 'missing';
      throw err;
    }
    const digest = await digestStream(body, t.sizeBytes);
    body.destroy();
    const outcome = compareDigest(digest, t);
    return outcome === 'verified' ? outcome : this.discard(t, outcome);
  }

  /** A stored object that does not match its declaration is deleted: it must never be served as evidence. */
  private async discard(t: UploadTarget, outcome: VerifyOutcome): Promise<VerifyOutcome> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.objectKey(t) }));
    return outcome;
  }

  async remove(t: Pick<UploadTarget, 'orgId' | 'key'>): Promise<void> {
    // S3 answers a delete of a missing key with success
    await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.objectKey(t) }));
  }

  async removeOrg(orgId: string): Promise<void> {
    for (;;) {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.o.bucket, Prefix: `${orgId}/`, MaxKeys: 1000 }),
      );
      const keys = (page.Contents ?? []).flatMap((c) => (c.Key ? [{ Key: c.Key }] : []));
      if (keys.length === 0) return;
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.o.bucket, Delete: { Objects: keys } }));
    }
  }

  close(): void {
    this.client.destroy();
  }
}
