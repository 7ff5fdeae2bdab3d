// Audit events: each query filter keeps exactly the matching events; malformed filters are a 400.
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/harness.ts';
import {
  audit,
  injectionScan,
  NASTY_AGENT,
  nastyScan,
  org,
  ssnScan,
  T,
  useAuditApp,
  walk,
  type Event,
} from './audit-fixture.ts';

useAuditApp();

describe('filters', () => {
  const scanIds = (r: { body: { data: Event[] } }) => r.body.data.map((e) => e.scan_id);

  it.each([
    ['kind=management', (e: Event) => e.kind === 'management'],
    ['kind=detection', (e: Event) => e.kind === 'detection'],
    ['agent_id=agent-b', (e: Event) => e.agent_id === 'agent-b'],
    ['surface=document', (e: Event) => e.surface === 'document'],
    ['detector=pii', (e: Event) => e.detector === 'pii'],
    ['resource_type=api_key', (e: Event) => e.resource_type === 'api_key'],
  ])('%s keeps exactly the matching events', async (q, match) => {
    const all = await walk('', 10_000);
    const r = await audit(`?${q}`);
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    expect(r.body.data).toEqual(all.filter(match));
  });

  it('actor_id: the acting key', async () => {
    const r = await audit(`?actor_id=${org.adminId}`);
    expect(r.body.data.length).toBe(5);
    expect(r.body.data.every((e: Event) => e.actor_id === org.adminId)).toBe(true);
    expect(
      (await audit('?actor_id=test')).body.data.every((e: Event) => e.kind === 'management' && e.actor_id === 'test'),
    ).toBe(true);
  });

  it('action: the decision', async () => {
    const action = injectionScan.decision.action;
    const r = await audit(`?action=${action}`);
    expect(scanIds(r)).toContain(injectionScan.id);
    expect(r.body.data.every((e: Event) => e.action === action)).toBe(true);
    expect((await audit('?action=allowed')).body.data).toEqual([]);
  });

  it('agent_id matches exactly, formula characters included', async () => {
    expect(scanIds(await audit(`?agent_id=${encodeURIComponent(NASTY_AGENT)}`))).toEqual([nastyScan.id]);
  });

  it('filters combine with AND', async () => {
    expect(scanIds(await audit('?agent_id=agent-a&detector=pii&surface=user_message'))).toEqual([ssnScan.id]);
    expect((await audit('?agent_id=agent-a&surface=document')).body.data).toEqual([]);
  });

  it('since is inclusive and until exclusive', async () => {
    expect(scanIds(await audit(`?kind=detection&since=${T(1)}&until=${T(3)}`))).toEqual([injectionScan.id, ssnScan.id]);
    expect(scanIds(await audit(`?kind=detection&since=${T(2)}`))).toEqual([nastyScan.id, injectionScan.id]);
    expect(scanIds(await audit(`?kind=detection&until=${T(2)}`))).toEqual([ssnScan.id]);
    const management = await audit(`?since=${T(4)}&until=${T(5)}`);
    expect(management.body.data.map((e: Event) => [e.kind, e.created])).toEqual([['management', T(4)]]);
    expect(
      (await audit(`?since=${encodeURIComponent('2026-03-01T13:03:00+01:00')}&kind=detection`)).body.data,
    ).toHaveLength(1);
  });

  it.each([
    'kind=other',
    'surface=nowhere',
    'action=maybe',
    'resource_type=scan',
    `actor_id=${'a'.repeat(256)}`,
    `agent_id=${'a'.repeat(256)}`,
    'agent_id=',
    'since=yesterday',
    `since=${T(3)}&until=${T(3)}`,
    'unknown=1',
  ])('rejects %s with 400 request.validation_failed', async (q) => {
    expectProblem(await audit(`?${q}`), 400, 'request.validation_failed');
  });

  it('accepts 255-character actor and agent ids', async () => {
    expect((await audit(`?actor_id=${'a'.repeat(255)}&agent_id=${'b'.repeat(255)}`)).body.data).toEqual([]);
  });
});
