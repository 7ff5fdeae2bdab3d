import { describe, expect, it } from 'vitest';
import { envelope, scanEventData } from '../../services/webhooks/envelope.ts';
import { RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { scanDeliveries, scanEventId } from '../../services/webhooks/subscriptions.ts';

const scan = {
  org_id: 'org_A',
  id: 'scan_01JD2Z0Q6A0000000000000001',
  action: 'blocked',
  created_at: new Date('2026-01-01T00:00:00Z'),
};
const subs = [
  { id: 'wh_1', events: ['scan.blocked' as const] },
  { id: 'wh_2', events: ['scan.allowed' as const] },
  { id: 'wh_3', events: ['scan.blocked' as const, 'webhook.failing' as const] },
];

describe('scanDeliveries', () => {
  it('one pending delivery per webhook subscribed to the action, sharing one event id', () => {
    const d = scanDeliveries(subs, scan);
    expect(d.map((x) => x.webhook_id)).toEqual(['wh_1', 'wh_3']);
    expect(new Set(d.map((x) => x.event_id))).toEqual(new Set([scanEventId(scan.id)]));
    expect(scanEventId(scan.id)).toBe('evt_01JD2Z0Q6A0000000000000001');
    expect(d[0]).toMatchObject({
      org_id: 'org_A',
      event_type: 'scan.blocked',
      scan_id: scan.id,
      event_created: scan.created_at,
      next_attempt_at: scan.created_at,
      data: null,
      redelivery_of: null,
    });
    expect(new Set(d.map((x) => x.id)).size).toBe(2);
  });

  it('a rule’s notify adds webhooks whatever they subscribe to; unknown ids are skipped', () => {
    expect(scanDeliveries(subs, scan, ['wh_2', 'wh_gone']).map((x) => x.webhook_id)).toEqual(['wh_1', 'wh_2', 'wh_3']);
  });

  it('nothing without subscribers', () => {
    expect(scanDeliveries([], scan)).toEqual([]);
    expect(scanDeliveries(subs, { ...scan, action: 'warned' })).toEqual([]);
  });
});

describe('scan event data', () => {
  const stored = {
    id: scan.id,
    created_at: '2026-01-01T00:00:00.000Z',
    kind: 'content',
    surface: 'user_message',
    tier: 'fast',
    action: 'blocked',
    decision: { action: 'blocked', reason: 'rule_matched' },
    scores: { pii: 0.99 },
    findings: [
      {
        detector: 'pii',
        items: [{ label: 'US_SSN', confidence: 0.99, text: '536-22-1234' }, { label: 'US_SSN' }, { label: 'EMAIL' }],
      },
    ],
    agent_id: 'a',
    session_id: null,
    mcp_server: null,
    trace_id: null,
    end_user_id_hash: null,
    content_stored: true,
    content: { type: 'text', text: 'my ssn 536-22-1234' },
    content_expires_at: '2026-01-31T00:00:00.000Z',
    content_chars: 18,
    latency_ms: 1.5,
  };
  const now = new Date('2026-01-02T00:00:00Z');

  it('is compact by default: counts and labels, no finding items, no content', () => {
    const d = scanEventData(scan.id, stored, false, now);
    expect(d.detectors).toEqual([{ detector: 'pii', findings: 3, labels: ['US_SSN', 'EMAIL'] }]);
    expect(JSON.stringify(d)).not.toContain('536-22-1234');
    expect(d).not.toHaveProperty('content');
    expect(d).not.toHaveProperty('findings');
  });

  it('include_content adds the findings and the captured content while it is retained', () => {
    expect(scanEventData(scan.id, stored, true, now)).toMatchObject({
      findings: stored.findings,
      content: stored.content,
    });
    expect(scanEventData(scan.id, stored, true, new Date('2026-02-01T00:00:00Z'))).not.toHaveProperty('content');
    expect(
      scanEventData(scan.id, { ...stored, content: null, content_stored: false, content_expires_at: null }, true, now),
    ).not.toHaveProperty('content');
  });

  it('a scan that no longer exists still names itself; the envelope is stable across attempts', () => {
    expect(scanEventData(scan.id, null, true, now)).toEqual({ scan_id: scan.id });
    const d = {
      event_type: 'scan.blocked' as const,
      event_id: 'evt_1',
      event_created: scan.created_at,
      data: null,
      scan_id: scan.id,
      scan: stored,
    };
    const a = envelope(d, false, '2026-11-01', now);
    expect(envelope(d, false, '2026-11-01', new Date(now.getTime() + 86_400_000))).toBe(a);
    expect(JSON.parse(a)).toMatchObject({
      type: 'scan.blocked',
      id: 'evt_1',
      created: '2026-01-01T00:00:00.000Z',
      api_version: '2026-11-01',
    });
  });

  it('the schedule: 7 attempts, counted from the first', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([0, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]);
  });
});
