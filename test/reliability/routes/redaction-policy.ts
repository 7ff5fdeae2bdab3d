import type { RouteEntry } from './model.ts';

const policy = (over: Record<string, unknown> = {}) => ({
  field_rules: { EMAIL_ADDRESS: 'hash', PERSON: 'pass_through' },
  default_obfuscation: 'redact',
  override_allowed_for_reviewers: false,
  redaction_version: 'redactor-v1.0.0',
  ...over,
});

/**
 * The organization's redaction policy (api/routes/redaction-policy/): read by any organization
 * principal (unscoped, spec), replaced by an admin (a new version each time).
 */
export const REDACTION_POLICY_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/org/redaction-policy', scope: 'authenticated', resource: 'redaction_policy' },
  {
    method: 'PUT',
    path: '/v1/org/redaction-policy',
    scope: 'admin',
    resource: 'redaction_policy',
    bodies: () => [
      policy(),
      policy({ field_rules: {}, default_obfuscation: 'hash', redaction_version: 'redactor-v1.1.0' }),
    ],
  },
];
