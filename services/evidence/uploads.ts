/**
 * Evidence uploads (docs/evidence.md): create declares kind, SHA-256 and size and answers a storage key
 * with a presigned URL pinned to both; the bytes are verified (size and SHA-256) before `verified_at`
 * is set — on receipt for the local backend, on `:complete` for S3. A labeled-event append may only
 * reference verified keys (store/evidence.ts verifiedKeys).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomBase62 } from '../../lib/crypto.ts';
import { Errors } from '../../lib/errors.ts';
import { isId } from '../../lib/ids.ts';
import type { Db } from '../../store/db.ts';
import { getUpload, insertUpload, markVerified, type EvidenceUploadRow } from '../../store/evidence.ts';
import { getRedactionPolicy } from '../redaction/policy.ts';
import { identifierIssues } from '../redaction/redactor.ts';
import { LocalEvidenceStorage, type SignedQuery } from './local-storage.ts';
import { S3EvidenceStorage } from './s3-storage.ts';
import type { EvidenceStorage, PresignedUpload, UploadTarget, VerifyOutcome } from './storage.ts';

export interface EvidenceDeps {
  db: Db;
  clock: Clock;
  storage: EvidenceStorage;
  ttlSeconds: number;
}

export interface CreateEvidenceUploadInput {
  kind: string;
  sha256: string;
  size_bytes: number;
}

export interface CreatedEvidenceUpload {
  upload: EvidenceUploadRow;
  presigned: PresignedUpload;
}

/** The configured backend: S3 when EVIDENCE_S3_BUCKET is set, else files under DATA_DIR/evidence. */
export function evidenceStorageFromConfig(
  config: Readonly<Config>,
  publicUrl: string,
  signingKey: Buffer,
): EvidenceStorage {
  if (!config.EVIDENCE_S3_BUCKET) {
    return new LocalEvidenceStorage(path.join(config.DATA_DIR, 'evidence'), publicUrl, signingKey);
  }
  const id = config.EVIDENCE_S3_ACCESS_KEY_ID;
  const secret = config.EVIDENCE_S3_SECRET_ACCESS_KEY;
  return new S3EvidenceStorage({
    bucket: config.EVIDENCE_S3_BUCKET,
    region: config.EVIDENCE_S3_REGION,
    endpoint: config.EVIDENCE_S3_ENDPOINT,
    forcePathStyle: config.EVIDENCE_S3_FORCE_PATH_STYLE,
    credentials: id && secret ? { accessKeyId: id, secretAccessKey: secret } : undefined,
  });
}

/**
 * The configured backend for removing objects only (the cleanup job, which holds no keyring): it is
 * built with a random signing key, so a URL it presigned would never verify.
 */
export function evidenceRemoverFromConfig(config: Readonly<Config>): Pick<EvidenceStorage, 'remove' | 'removeOrg'> {
  return evidenceStorageFromConfig(config, 'http://localhost', randomBytes(32));
}

/** `ev_` + 33 base62 characters (192 random bits): unguessable, and safe in a path segment. */
function newStorageKey(): string {
  return `ev_${randomBase62(24)}`;
}

function targetOf(u: EvidenceUploadRow): UploadTarget {
  return { orgId: u.org_id, key: u.storage_key, sha256: u.sha256, sizeBytes: u.size_bytes, expiresAt: u.expires_at };
}

/**
 * Declares an upload and presigns its URL, valid `ttlSeconds`. `kind` is a name stored verbatim (a
 * labeled event's `evidence_blob_keys[].kind` names it too), so one holding an identifier the
 * organization's redaction policy hides is refused.
 * @throws ProblemError 400 `evidence.identifier_contains_pii`.
 */
export async function createEvidenceUpload(
  deps: EvidenceDeps,
  orgId: string,
  input: CreateEvidenceUploadInput,
): Promise<CreatedEvidenceUpload> {
  const issues = identifierIssues(await getRedactionPolicy(deps, orgId), [['kind', input.kind]]);
  if (issues.length > 0) throw Errors.evidenceIdentifierPii(issues);
  const now = deps.clock.now();
  const upload = await insertUpload(deps.db, {
    storage_key: newStorageKey(),
    org_id: orgId,
    kind: input.kind,
    sha256: input.sha256,
    size_bytes: input.size_bytes,
    backend: deps.storage.backend,
    created_at: now,
    expires_at: new Date(now.getTime() + deps.ttlSeconds * 1000),
  });
  return { upload, presigned: await deps.storage.presignUpload(targetOf(upload), now) };
}

function raiseFor(outcome: Exclude<VerifyOutcome, 'verified'>, u: EvidenceUploadRow): never {
  if (outcome === 'missing') throw Errors.evidenceNotUploaded();
  if (outcome === 'size_mismatch') throw Errors.evidenceSizeMismatch(u.size_bytes);
  throw Errors.evidenceChecksumMismatch();
}

/** A storage key as `newStorageKey` makes them: anything else was never signed. */
const STORAGE_KEY = /^ev_[0-9A-Za-z]{33}$/;
/** An HMAC-SHA256 signature in base64url. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The local-backend upload a signed URL authenticates. What the query alone can refute is refused
 * without the database — a malformed key, organization or signature, a past expiry — so a flood of
 * bad URLs costs at most one indexed lookup each, of well-formed ones.
 * @throws ProblemError 403 `evidence.signature_invalid` (also for an unknown key, and on the S3
 * backend: the URL proves nothing), 410 `evidence.upload_expired`.
 */
export async function authenticateUpload(
  deps: EvidenceDeps,
  key: string,
  signed: SignedQuery,
): Promise<EvidenceUploadRow> {
  const storage = deps.storage;
  const wellFormed =
    STORAGE_KEY.test(key) &&
    isId('org', signed.org) &&
    SIGNATURE.test(signed.signature) &&
    Number.isInteger(signed.expires);
  if (!wellFormed || !(storage instanceof LocalEvidenceStorage)) throw Errors.evidenceSignatureInvalid();
  // Whether or not the signature holds, no upload is accepted past `expires` (which it covers).
  if (deps.clock.now().getTime() >= signed.expires * 1000) throw Errors.evidenceUploadExpired();
  const found = await getUpload(deps.db, signed.org, key);
  if (!found || found.backend !== 'local' || !storage.signatureValid(targetOf(found), signed)) {
    throw Errors.evidenceSignatureInvalid();
  }
  return found;
}

/**
 * Receives the bytes of `upload`, which its signed URL authenticated (`authenticateUpload`).
 * @throws ProblemError 409 `evidence.already_uploaded`, 400 `evidence.size_mismatch` /
 * `evidence.checksum_mismatch`.
 */
export async function receiveEvidence(
  deps: EvidenceDeps,
  upload: EvidenceUploadRow,
  contentLength: number | undefined,
  body: Readable,
): Promise<EvidenceUploadRow> {
  const storage = deps.storage;
  if (!(storage instanceof LocalEvidenceStorage)) throw Errors.evidenceSignatureInvalid();
  if (upload.verified_at) throw Errors.evidenceAlreadyUploaded();
  if (contentLength !== undefined && contentLength !== upload.size_bytes)
    throw Errors.evidenceSizeMismatch(upload.size_bytes);
  const outcome = await storage.receive(targetOf(upload), body);
  if (outcome !== 'verified') raiseFor(outcome, upload);
  const verified = await markVerified(deps.db, upload.org_id, upload.storage_key, deps.clock.now());
  if (!verified) throw Errors.evidenceAlreadyUploaded();
  return verified;
}

/**
 * Checks what the backend holds under the key (size and SHA-256, read back in a stream) and marks the
 * upload verified; idempotent once verified.
 * @throws ProblemError 404 `evidence.not_found`, 409 `evidence.not_uploaded`, 400
 * `evidence.size_mismatch` / `evidence.checksum_mismatch` (the S3 object is then deleted).
 */
export async function completeEvidenceUpload(
  deps: EvidenceDeps,
  orgId: string,
  key: string,
): Promise<EvidenceUploadRow> {
  const found = await getUpload(deps.db, orgId, key);
  if (!found) throw Errors.evidenceNotFound();
  if (found.verified_at) return found;
  const outcome = await deps.storage.verify(targetOf(found));
  if (outcome !== 'verified') raiseFor(outcome, found);
  return (await markVerified(deps.db, orgId, key, deps.clock.now())) ?? (await getUpload(deps.db, orgId, key))!;
}
