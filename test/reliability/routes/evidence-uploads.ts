import type { RouteEntry } from './model.ts';

const body = (size: number) => ({ kind: 'screenshot', sha256: 'a'.repeat(64), size_bytes: size });

/**
 * Evidence uploads (api/routes/evidence-uploads/, docs/evidence.md): create and `:complete` with
 * `labeled_events:write`; the local backend's upload URL, public (its signature is the credential).
 */
export const EVIDENCE_UPLOAD_ROUTES: readonly RouteEntry[] = [
  {
    method: 'POST',
    path: '/v1/evidence-uploads',
    scope: 'labeled_events:write',
    resource: 'evidence_upload',
    bodies: () => [body(1024), body(104_857_600)],
  },
  {
    method: 'PUT',
    path: '/v1/evidence-uploads/{storage_key}/content',
    scope: 'public',
    resource: 'evidence_upload',
    bodies: () => [{}],
    // The suites send no signed query (expires, signature): the URL the create answer gives is the only valid request.
    expect: {
      self_hosted: { status: 403, code: 'evidence.signature_invalid' },
      saas: { status: 403, code: 'evidence.signature_invalid' },
    },
    crossTenant: 'the signed URL is the credential (it binds the organization), not a bearer',
  },
  {
    method: 'POST',
    path: '/v1/evidence-uploads/{storage_key}:complete',
    scope: 'labeled_events:write',
    resource: 'evidence_upload',
    bodies: () => [{}],
  },
];
