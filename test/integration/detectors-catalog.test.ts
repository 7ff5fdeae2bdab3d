import { describe, expect, it } from 'vitest';
import { buildApiKey, call, expectProblem } from '../support/harness.ts';
import { app, org, useScansApp } from './scans-fixture.ts';

useScansApp();

describe('GET /v1/detectors', () => {
  it('is unscoped: any valid key reads the catalog, with real framework ids and thresholds', async () => {
    const reader = (await buildApiKey(app, org.orgId, { scopes: ['audit:read'] })).secret;
    const r = await call(app, 'GET', '/v1/detectors', { key: reader });
    expect(r.status).toBe(200);
    const names = r.body.data.map((d: { name: string }) => d.name);
    expect(names).toEqual(['prompt_injection', 'pii', 'toxicity', 'sensitive_path']);
    for (const d of r.body.data) {
      expect(Object.keys(d)).toEqual(
        expect.arrayContaining([
          'name',
          'version',
          'model',
          'kind',
          'enabled',
          'frameworks',
          'surfaces_supported',
          'thresholds',
        ]),
      );
      expect(d.enabled).toBe(true);
      expect(d.surfaces_supported).toHaveLength(8);
      const t = d.thresholds;
      expect(t.warn_above).toBeLessThanOrEqual(t.flag_above);
      expect(t.flag_above).toBeLessThanOrEqual(t.block_above);
    }
    const pi = r.body.data.find((d: { name: string }) => d.name === 'prompt_injection');
    expect(pi.frameworks.owasp_llm).toContain('LLM01:2025');
    // calibrated detectors publish one scale and the benign false-alarm rate each level stands for
    const byName = (n: string) => r.body.data.find((d: { name: string }) => d.name === n);
    for (const n of ['prompt_injection', 'toxicity']) {
      expect(byName(n).thresholds).toEqual({ block_above: 0.9, flag_above: 0.7, warn_above: 0.5 });
      expect(byName(n).threshold_false_alarm_rates).toEqual({ block_above: 0.005, flag_above: 0.02, warn_above: 0.05 });
    }
    for (const n of ['pii', 'sensitive_path']) expect(byName(n).threshold_false_alarm_rates).toBeNull();
    expect(pi.model).toMatch(/pi-accurate@/);
    expectProblem(await call(app, 'GET', '/v1/detectors'), 401, 'auth.unauthenticated');
  });
  it('pages with limit and cursor', async () => {
    const p1 = await call(app, 'GET', '/v1/detectors?limit=3', { key: org.admin });
    expect(p1.body.data).toHaveLength(3);
    const p2 = await call(app, 'GET', `/v1/detectors?limit=3&cursor=${encodeURIComponent(p1.body.next_cursor)}`, {
      key: org.admin,
    });
    expect(p2.body.data.map((d: { name: string }) => d.name)).toEqual(['sensitive_path']);
    expect(p2.body.next_cursor).toBeNull();
    expectProblem(
      await call(app, 'GET', '/v1/detectors?cursor=bogus', { key: org.admin }),
      400,
      'detectors.invalid_cursor',
    );
  });
});
