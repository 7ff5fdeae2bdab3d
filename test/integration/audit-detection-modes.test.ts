// AUDIT_DETECTION_EVENTS: which scans record a detection event (all, none, non_allowed), each on an app of its own.
import { describe, expect, it } from 'vitest';
import { buildOrg, call, startTestApp } from '../support/harness.ts';
import { BENIGN, SSN, text, type Event } from './audit-fixture.ts';

describe('AUDIT_DETECTION_EVENTS', () => {
  it.each([
    ['all', [true, true]],
    ['none', [false, false]],
    ['non_allowed', [false, true]],
  ] as const)('%s', async (mode, [allowedRecorded, blockedRecorded]) => {
    const modeApp = await startTestApp({ env: { AUDIT_DETECTION_EVENTS: mode } });
    try {
      const o = await buildOrg(modeApp, `Mode ${mode}`);
      const allowed = await call(modeApp, 'POST', '/v1/scans', { key: o.admin, json: text(BENIGN) });
      const flagged = await call(modeApp, 'POST', '/v1/scans', { key: o.admin, json: text(SSN) });
      expect(allowed.body.decision.action).toBe('allowed');
      expect(flagged.body.decision.action).not.toBe('allowed');
      const r = await call(modeApp, 'GET', '/v1/audit-events?kind=detection', { key: o.admin });
      const recorded = new Set(r.body.data.map((e: Event) => e.scan_id));
      expect([recorded.has(allowed.body.id), recorded.has(flagged.body.id)]).toEqual([
        allowedRecorded,
        blockedRecorded,
      ]);
      if (allowedRecorded) {
        const e = r.body.data.find((x: Event) => x.scan_id === allowed.body.id);
        expect(e).toMatchObject({
          action: 'allowed',
          detector: null,
          score: null,
          owasp_tags: [],
          mitre_tags: [],
          enforced: true,
        });
      }
    } finally {
      await modeApp.close();
    }
  });
});
