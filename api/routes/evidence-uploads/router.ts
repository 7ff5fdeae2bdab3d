import {
  completeEvidenceUpload,
  createEvidenceUpload,
  receiveEvidence,
  type EvidenceDeps,
} from '../../../services/evidence/uploads.ts';
import { entries } from '../../../lib/error-catalogue.ts';
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

/**
 * Evidence uploads (docs/evidence.md): create `POST /v1/evidence-uploads` (201, a presigned upload URL)
 * and `POST /v1/evidence-uploads/{storage_key}:complete` with `labeled_events:write`; the local
 * backend's upload URL `PUT /v1/evidence-uploads/{storage_key}/content`, whose signature is the
 * credential (no bearer), reads the raw body as a stream.
 */
export function evidenceUploadRoutes(routes: Routes, deps: EvidenceDeps): void {
  routes.post('/v1/evidence-uploads', {
    access: 'labeled_events:write',
    body: createEvidenceUploadBody,
    responds: { status: 201, body: EvidenceUploadCreated },
    handler: async ({ res, principal, body }) => {
      const { upload, presigned } = await createEvidenceUpload(deps, principal.org_id, body);
      res.status(201).json(presentCreatedUpload(upload, presigned));
    },
  });

  routes.put('/v1/evidence-uploads/:storage_key/content', {
    access: 'public',
    rawBody: true,
    params: storageKeyParams,
    query: uploadContentQuery,
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
      const signed = { org: query.org, expires: Number(query.expires), signature: query.signature };
      try {
        const upload = await receiveEvidence(
          deps,
          params.storage_key,
          signed,
          length === undefined ? undefined : Number(length),
          req,
        );
        res.json(presentEvidenceUpload(upload));
      } catch (err) {
        // The body may be partly unread: close the connection after the answer rather than drain it.
        if (!req.complete) res.setHeader('Connection', 'close');
        throw err;
      }
    },
  });

  routes.post('/v1/evidence-uploads/:storage_key\\:complete', {
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
