import { pageQueryOnly, type RouteEntry } from './model.ts';

const runBody = (over: Record<string, unknown> = {}) => ({
  scope_hash: 'c'.repeat(64),
  upload_enabled: false,
  training_consent: false,
  written_authorization: true,
  attached_authenticated: false,
  started_at: '2026-11-20T10:00:00Z',
  model_versions: { 'pi-fast': '1.0.0' },
  corpus_hashes: { builtin: 'd'.repeat(64) },
  redteam_version: 'reliability 1.0',
  ...over,
});

const finding = {
  attack_class: 'direct_injection',
  severity: 'medium',
  title: 'reliability finding',
  description: 'an allowed probe',
  framework_refs: [{ framework: 'owasp_llm', id: 'LLM01' }],
  representative_event_id: null,
  remediation_class: 'policy_threshold',
};

/**
 * Red-team runs (api/routes/redteam-runs/): create, list, get, finalize (uses its run up: a finished
 * run answers 409), add and list findings. Scopes `redteam:read` / `redteam:write` (docs/api.md).
 */
export const REDTEAM_RUN_ROUTES: readonly RouteEntry[] = [
  {
    method: 'GET',
    path: '/v1/redteam-runs',
    scope: 'redteam:read',
    resource: 'redteam_run',
    list: pageQueryOnly,
    query: { state: ['running', 'finished'] },
  },
  {
    method: 'POST',
    path: '/v1/redteam-runs',
    scope: 'redteam:write',
    resource: 'redteam_run',
    bodies: () => [
      runBody(),
      runBody({ scope_redacted: { target: '[redacted]' }, operator_id: 'operator', training_consent: true }),
    ],
  },
  { method: 'GET', path: '/v1/redteam-runs/{run_id}', scope: 'redteam:read', resource: 'redteam_run' },
  {
    method: 'POST',
    path: '/v1/redteam-runs/{run_id}:finalize',
    scope: 'redteam:write',
    resource: 'redteam_run',
    consumes: true,
    bodies: () => [
      { finished_at: '2026-11-20T11:00:00Z', verdict: 'high', verdict_reason: 'misses' },
      { finished_at: '2026-11-20T12:00:00Z', verdict: 'info', verdict_reason: null },
    ],
  },
  {
    method: 'POST',
    path: '/v1/redteam-runs/{run_id}/findings',
    scope: 'redteam:write',
    resource: 'redteam_finding',
    bodies: () => [{ findings: [finding] }, { findings: [finding, { ...finding, severity: 'critical' }] }],
  },
  {
    method: 'GET',
    path: '/v1/redteam-runs/{run_id}/findings',
    scope: 'redteam:read',
    resource: 'redteam_finding',
    list: pageQueryOnly,
  },
];
