import { describe, expect, it } from 'vitest';
import { idFloor, isId } from '../../lib/ids.ts';
import { detectionEventFor, triggeringDetector } from '../../store/detection-events.ts';
import type { ScanRow } from '../../store/scans.ts';

const PII_FRAMEWORKS = { owasp_agentic: [], owasp_llm: ['LLM02:2025'], mitre_atlas: ['AML.T0057'] };
const PI_FRAMEWORKS = { owasp_agentic: ['T6', 'T2'], owasp_llm: ['LLM01:2025'], mitre_atlas: ['AML.T0051'] };

function scan(over: Partial<ScanRow> = {}, decision: Record<string, unknown> = {}): ScanRow {
  return {
    org_id: 'org_01J00000000000000000000000',
    id: 'scan_01J00000000000000000000000',
    created_at: new Date('2026-03-01T12:00:00.000Z'),
    kind: 'content',
    surface: 'user_message',
    tier: 'auto',
    agent_id: 'agent-1',
    session_id: 'session-1',
    mcp_server: null,
    trace_id: null,
    end_user_id_hash: null,
    action: 'blocked',
    decision: {
      action: 'blocked',
      reason: 'score_threshold',
      policy_id: null,
      policy_revision_id: null,
      matched_rule_id: null,
      triggering_finding: 'pii:US_SSN',
      ...decision,
    },
    findings: [
      { detector: 'pii', items: [], frameworks: PII_FRAMEWORKS },
      { detector: 'prompt_injection', items: [], frameworks: PI_FRAMEWORKS },
    ],
    scores: { pii: 0.99, prompt_injection: 0.4, toxicity: 0.01 },
    content_stored: false,
    content: null,
    content_expires_at: null,
    content_chars: 20,
    latency_ms: 1,
    api_key_id: 'ak_01J00000000000000000000000',
    request_id: 'req-1',
    mcp_tools: null,
    observed_action: null,
    ...over,
  };
}

describe('detectionEventFor', () => {
  it('copies the scan and takes detector, score and tags from the triggering finding', () => {
    const e = detectionEventFor(scan(), 'non_allowed')!;
    expect(isId('audit', e.id)).toBe(true);
    // the id carries the scan's time, so the audit time window is an id range
    expect(e.id.slice(0, 14)).toBe(idFloor('audit', new Date('2026-03-01T12:00:00.000Z')).slice(0, 14));
    expect(e).toEqual({
      id: e.id,
      org_id: 'org_01J00000000000000000000000',
      kind: 'detection',
      created: new Date('2026-03-01T12:00:00.000Z'),
      actor_id: 'ak_01J00000000000000000000000',
      request_id: 'req-1',
      scan_id: 'scan_01J00000000000000000000000',
      agent_id: 'agent-1',
      session_id: 'session-1',
      surface: 'user_message',
      detector: 'pii',
      score: 0.99,
      action: 'blocked',
      owasp_tags: ['LLM02:2025'],
      mitre_tags: ['AML.T0057'],
      enforced: true,
    });
  });

  it('puts OWASP LLM and agentic ids in owasp_tags, ATLAS ids in mitre_tags', () => {
    const e = detectionEventFor(scan({}, { triggering_finding: 'prompt_injection:INJECTION' }), 'non_allowed')!;
    expect(e).toMatchObject({
      detector: 'prompt_injection',
      score: 0.4,
      owasp_tags: ['LLM01:2025', 'T6', 'T2'],
      mitre_tags: ['AML.T0051'],
    });
  });

  it('a bare detector name triggers too; a detector without findings has no tags', () => {
    expect(detectionEventFor(scan({}, { triggering_finding: 'toxicity' }), 'all')).toMatchObject({
      detector: 'toxicity',
      score: 0.01,
      owasp_tags: [],
      mitre_tags: [],
    });
  });

  it('an MCP list decision, an unknown name or no trigger leaves detector and score null', () => {
    for (const t of ['mcp:blocked_server:evil', 'policy:rule-1', null, '']) {
      expect(detectionEventFor(scan({}, { triggering_finding: t }), 'non_allowed')).toMatchObject({
        detector: null,
        score: null,
        owasp_tags: [],
        mitre_tags: [],
      });
    }
  });

  it('non_allowed records every action but allowed; all records every scan; none records nothing', () => {
    for (const action of ['blocked', 'flagged', 'warned'] as const)
      expect(detectionEventFor(scan({ action }), 'non_allowed')?.action).toBe(action);
    const allowed = scan(
      { action: 'allowed' },
      { action: 'allowed', reason: 'below_thresholds', triggering_finding: null },
    );
    expect(detectionEventFor(allowed, 'non_allowed')).toBeNull();
    expect(detectionEventFor(allowed, 'all')).toMatchObject({
      action: 'allowed',
      detector: null,
      score: null,
      enforced: true,
    });
    expect(detectionEventFor(scan(), 'none')).toBeNull();
  });

  it('observe mode records the would-be action, not enforced', () => {
    const observed = scan({ action: 'allowed', observed_action: 'blocked' });
    expect(detectionEventFor(observed, 'non_allowed')).toMatchObject({
      action: 'blocked',
      enforced: false,
      detector: 'pii',
    });
    // would have allowed: not recorded by default
    expect(detectionEventFor(scan({ action: 'allowed', observed_action: 'allowed' }), 'non_allowed')).toBeNull();
  });

  it('keeps a given id', () => {
    expect(detectionEventFor(scan(), 'all', 'aud_01KJMMA2G00000000000000000')!.id).toBe(
      'aud_01KJMMA2G00000000000000000',
    );
  });
});

describe('triggeringDetector', () => {
  it('splits at the first colon and requires a detector that ran', () => {
    expect(triggeringDetector('pii:US_SSN', { pii: 1 })).toBe('pii');
    expect(triggeringDetector('pii:A:B', { pii: 1 })).toBe('pii');
    expect(triggeringDetector('pii', { pii: 1 })).toBe('pii');
    expect(triggeringDetector('toxicity:x', { pii: 1 })).toBeNull();
    expect(triggeringDetector('mcp:x', { mcp: 1 })).toBeNull();
    expect(triggeringDetector('constructor', {})).toBeNull();
    expect(triggeringDetector(42, { pii: 1 })).toBeNull();
  });
});
