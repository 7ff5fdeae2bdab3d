import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { templateOf } from '../../api/openapi/paths.ts';
import { summaryOf } from '../../api/openapi/summary.ts';
import type { DeclaredRoute } from '../../api/route.ts';

const list = z.object({ cursor: z.string().optional() });

/** The summary of `method path` (an Express path), a list when `paged`. */
const summary = (method: DeclaredRoute['method'], path: string, paged = false) =>
  summaryOf(
    { method, path, access: 'public', responds: [], errors: [], ...(paged ? { query: list } : {}) },
    templateOf(path),
  );

describe('operation summaries', () => {
  it('name the action and the resource', () => {
    expect(summary('GET', '/v1/api-keys', true)).toBe('List API keys');
    expect(summary('POST', '/v1/api-keys')).toBe('Create an API key');
    expect(summary('GET', '/v1/policies/:policy_id')).toBe('Get a policy');
    expect(summary('PUT', '/v1/policies/:policy_id')).toBe('Replace a policy');
    expect(summary('PATCH', '/v1/users/:user_id')).toBe('Update a user');
    expect(summary('DELETE', '/v1/legacy-analyses/:analysis_id')).toBe('Delete a legacy analysis');
  });

  it('name custom methods and sub-resources', () => {
    expect(summary('POST', '/v1/api-keys/:api_key_id\\:rotate')).toBe('Rotate an API key');
    expect(summary('POST', '/v1/webhooks/:webhook_id\\:rotate-secret')).toBe("Rotate a webhook's secret");
    expect(summary('GET', '/v1/webhooks/:webhook_id/deliveries', true)).toBe("List a webhook's deliveries");
    expect(summary('POST', '/v1/redteam-runs/:run_id/findings')).toBe('Add findings to a red-team run');
    expect(summary('PUT', '/v1/evidence-uploads/:storage_key/content')).toBe("Replace an evidence upload's content");
  });

  it('name singletons and the service routes', () => {
    expect(summary('GET', '/v1/org/redaction-policy')).toBe('Get the organization redaction policy');
    expect(summary('GET', '/healthz')).toBe('Liveness');
    expect(summary('GET', '/openapi.json')).toBe('This OpenAPI document');
  });
});
