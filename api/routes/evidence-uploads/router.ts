import type { Request } from 'express';
import {
  authenticateUpload,
  completeEvidenceUpload,
  createEvidenceUpload,
  receiveEvidence,
  type EvidenceDeps,
} from '../../../services/evidence/uploads.ts';
import type { SignedQuery } from '../../../services/evidence/local-storage.ts';
import type { EvidenceUploadRow } from '../../../store/evidence.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import { ProblemError } from '../../../lib/errors.ts';
import { emptyBody } from '../../fields.ts';
import type { Routes } from '../../route.ts';
import { presentCreatedUpload, presentEvidenceUpload } from './presenter.ts';
import {
  createEvidenceUploadBody,
  EvidenceUpload,
  EvidenceUploadCreated,
  storageKeyParams,
  uploadContentQuery,
} from './schema.ts';

/** The signed part of an upload URL's query, as the route's schema reads it. */
const signedQueryOf = (q: { org: string; expires: string; signature: string }): SignedQuery => ({
  org: q.org,
  expires: Number(q.expires),
  signature: q.signature,
});

/**
 * Evidence uploads (docs/evidence.md): create `POST /v1/evidence-uploads` (201, a presigned upload URL)
 * and `POST /v1/evidence-uploads/{storage_key}:complete` with `labeled_events:write`; the local
 * backend's upload URL `PUT /v1/evidence-uploads/{storage_key}/content`, whose signature is the
 * credential (no bearer), reads the raw body as a stream. A validly signed upload URL spends a budget
 * of its own, `uploadLimit` requests per window per upload, not its client address's.
 */
export function evidenceUploadRoutes(routes: Routes, deps: EvidenceDeps, uploadLimit: number): void {
  // What the signature check before the limiter found, for the handler: the upload, or its refusal;
  // nothing when the check could not finish (a database error), so the handler checks again.
  const checked = new WeakMap<Request, EvidenceUploadRow | ProblemError>();
  routes.post('/v1/evidence-uploads', {
    operationId: 'createEvidenceUpload',
    access: 'labeled_events:write',
    body: createEvidenceUploadBody,
    responds: { status: 201, body: EvidenceUploadCreated },
    errors: [entries.evidenceIdentifierPii],
    handler: async ({ res, principal, body }) => {
      const { upload, presigned } = await createEvidenceUpload(deps, principal.org_id, body);
      res.status(201).json(presentCreatedUpload(upload, presigned));
    },
  });

  routes.put('/v1/evidence-uploads/:storage_key/content', {
    operationId: 'uploadEvidenceContent',
    access: 'public',
    rawBody: true,
    params: storageKeyParams,
    query: uploadContentQuery,
    // Keyed by the upload, not its organization: a leaked URL can spend only its own upload's budget.
    signed: async (req) => {
      const query = uploadContentQuery.safeParse(req.query);
      const key = req.params.storage_key;
      if (!query.success || typeof key !== 'string') return null;
      try {
        const upload = await authenticateUpload(deps, key, signedQueryOf(query.data));
        checked.set(req, upload);
        return { bucket: `upload:${upload.storage_key}`, limit: uploadLimit };
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        checked.set(req, err);
        return null;
      }
    },
    responds: { status: 200, body: EvidenceUpload, description: 'Received and verified (`verified_at` set).' },
    errors: [
      entries.evidenceSignatureInvalid,
      entries.evidenceUploadExpired,
      entries.evidenceAlreadyUploaded,
      entries.evidenceSizeMismatch,
      entries.evidenceChecksumMismatch,
    ],
    handler: async ({ req, res, params, query }) => {
      const length = req.get('content-length');
      try {
        const found = checked.get(req) ?? (await authenticateUpload(deps, params.storage_key, signedQueryOf(query)));
        if (found instanceof ProblemError) throw found;
        const upload = await receiveEvidence(deps, found, length === undefined ? undefined : Number(length), req);
        res.json(presentEvidenceUpload(upload));
      } catch (err) {
        // The body may be partly unread: close the connection after the answer rather than drain it.
        if (!req.complete) res.setHeader('Connection', 'close');
        throw err;
      }
    },
  });

  routes.post('/v1/evidence-uploads/:storage_key\\:complete', {
    operationId: 'completeEvidenceUpload',
    access: 'labeled_events:write',
    params: storageKeyParams,
    body: emptyBody,
    responds: { status: 200, body: EvidenceUpload, description: 'Verified (or already verified).' },
    errors: [
      entries.evidenceNotFound,
      entries.evidenceNotUploaded,
      entries.evidenceSizeMismatch,
      entries.evidenceChecksumMismatch,
    ],
    handler: async ({ res, principal, params }) => {
      res.json(presentEvidenceUpload(await completeEvidenceUpload(deps, principal.org_id, params.storage_key)));
    },
  });
}
