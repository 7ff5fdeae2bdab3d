import { describe, expect, it } from 'vitest';
import {
  compileCondition,
  compilePolicy,
  evaluatePolicy,
  type Condition,
  type PolicyDocument,
  type ScanFacts,
} from '../../engine/policy.ts';

const BUILTIN = { warn_above: 0.5, flag_above: 0.8, block_above: 0.95 };
const builtin = () => BUILTIN;

const facts = (over: Partial<ScanFacts> = {}): ScanFacts => ({
  surface: 'user_message',
  agent_id: 'agent-support-1',
  session_id: 's-1',
  mcp_server: null,
  mcp_tools: null,
  content_length: 120,
  results: [
    { detector: 'prompt_injection', score: 0.7, items: [{ label: 'prompt_injection', confidence: 0.7 }] },
    {
      detector: 'pii',
      score: 0.99,
      items: [
        { label: 'EMAIL_ADDRESS', confidence: 0.99 },
        { label: 'US_SSN', confidence: 0.85 },
      ],
    },
    { detector: 'toxicity', score: 0.1, items: [] },
  ],
  ...over,
});

const doc = (over: Partial<PolicyDocument> = {}): PolicyDocument => ({
  rules: [],
  default_action: 'allowed',
  detector_config: {},
  allowed_mcp_servers: [],
  blocked_mcp_servers: [],
  allowed_mcp_tools: [],
  blocked_mcp_tools: [],
  ...over,
});

const policy = (d: Partial<PolicyDocument> = {}, mode: 'enforce' | 'observe' = 'enforce') =>
  compilePolicy({ id: 'pol_1', revision_id: 'rev_1', name: 'p', mode, enabled: true, document: doc(d) });

const matches = (c: Condition, f = facts()) => compileCondition(c)(f);

describe('conditions', () => {
  it.each<[string, Condition, boolean, string | null]>([
    [
      'score_above: strictly greater',
      { detector: 'prompt_injection', score_above: 0.6 },
      true,
      'prompt_injection:prompt_injection',
    ],
    ['score_above: equal does not match', { detector: 'prompt_injection', score_above: 0.7 }, false, null],
    ['score_above: a detector that did not run', { detector: 'sensitive_path', score_above: 0 }, false, null],
    ['score_below: strictly less', { detector: 'toxicity', score_below: 0.2 }, true, null],
    ['score_below: not less', { detector: 'toxicity', score_below: 0.1 }, false, null],
    ['score_below: a detector that did not run', { detector: 'sensitive_path', score_below: 1 }, false, null],
    [
      'label_in: the most confident listed label',
      { detector: 'pii', label_in: ['US_SSN', 'EMAIL_ADDRESS'] },
      true,
      'pii:EMAIL_ADDRESS',
    ],
    ['label_in: one listed label', { detector: 'pii', label_in: ['US_SSN'] }, true, 'pii:US_SSN'],
    ['label_in: min_confidence filters', { detector: 'pii', label_in: ['US_SSN'], min_confidence: 0.9 }, false, null],
    [
      'label_in: min_confidence is inclusive',
      { detector: 'pii', label_in: ['US_SSN'], min_confidence: 0.85 },
      true,
      'pii:US_SSN',
    ],
    ['label_in: no such label', { detector: 'pii', label_in: ['CREDIT_CARD'] }, false, null],
    ['surface_in', { surface_in: ['user_message', 'document'] }, true, null],
    ['surface_in: other surface', { surface_in: ['tool_result'] }, false, null],
    ['surface_not_in', { surface_not_in: ['tool_result'] }, true, null],
    ['surface_not_in: listed', { surface_not_in: ['user_message'] }, false, null],
    ['context equals', { context: 'agent_id', equals: 'agent-support-1' }, true, null],
    ['context equals: case-sensitive', { context: 'agent_id', equals: 'Agent-support-1' }, false, null],
    ['context prefix', { context: 'agent_id', prefix: 'agent-support-' }, true, null],
    ['context prefix: absent field', { context: 'mcp_server', prefix: '' }, false, null],
    ['context in', { context: 'session_id', in: ['s-0', 's-1'] }, true, null],
    ['context in: absent field', { context: 'mcp_server', in: ['x'] }, false, null],
    ['context present', { context: 'agent_id', present: true }, true, null],
    ['context present: false on an absent field', { context: 'mcp_server', present: false }, true, null],
    ['content_length_above', { content_length_above: 119 }, true, null],
    ['content_length_above: equal', { content_length_above: 120 }, false, null],
    ['content_length_below', { content_length_below: 121 }, true, null],
    [
      'all_of: every part; the first finding',
      {
        all_of: [
          { surface_in: ['user_message'] },
          { detector: 'pii', label_in: ['US_SSN'] },
          { detector: 'prompt_injection', score_above: 0.5 },
        ],
      },
      true,
      'pii:US_SSN',
    ],
    [
      'all_of: one part fails',
      { all_of: [{ surface_in: ['user_message'] }, { detector: 'toxicity', score_above: 0.5 }] },
      false,
      null,
    ],
    [
      'any_of: the first matching part decides',
      {
        any_of: [
          { detector: 'toxicity', score_above: 0.5 },
          { detector: 'pii', label_in: ['EMAIL_ADDRESS'] },
        ],
      },
      true,
      'pii:EMAIL_ADDRESS',
    ],
    [
      'any_of: none',
      { any_of: [{ detector: 'toxicity', score_above: 0.5 }, { surface_in: ['document'] }] },
      false,
      null,
    ],
    ['not: negates, and reports no finding', { not: { detector: 'toxicity', score_above: 0.5 } }, true, null],
    ['not: of a match', { not: { surface_in: ['user_message'] } }, false, null],
    [
      'nested: all_of with any_of and not',
      {
        all_of: [
          {
            any_of: [
              { context: 'agent_id', prefix: 'x' },
              { context: 'agent_id', prefix: 'agent-' },
            ],
          },
          { not: { surface_in: ['document'] } },
        ],
      },
      true,
      null,
    ],
  ])('%s', (_name, c, matched, finding) => {
    const m = matches(c);
    expect(m !== null).toBe(matched);
    if (m) expect(m.finding).toBe(finding);
  });
});

describe('evaluation order', () => {
  const blockRule = {
    id: 'r-block',
    name: 'ssn',
    when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] }] },
    then: { action: 'blocked' as const, notify: [] },
  };
  const allowRule = {
    id: 'r-allow',
    name: 'trusted agent',
    when: { all_of: [{ context: 'agent_id' as const, prefix: 'agent-' }] },
    then: { action: 'allowed' as const, notify: ['wh_1'] },
  };

  it('without a policy: the built-in thresholds', () => {
    const d = evaluatePolicy(null, facts(), builtin);
    expect(d).toMatchObject({
      action: 'blocked',
      reason: 'score_threshold',
      policy_id: null,
      triggering_finding: 'pii:EMAIL_ADDRESS',
    });
  });

  it('MCP lists come first: a blocked server beats an allow rule', () => {
    const p = policy({ rules: [allowRule], blocked_mcp_servers: ['evil'] });
    expect(evaluatePolicy(p, facts({ mcp_server: 'evil' }), builtin)).toMatchObject({
      action: 'blocked',
      reason: 'mcp_server_blocked',
      triggering_finding: 'mcp:evil',
      matched_rule_id: null,
      policy_id: 'pol_1',
      policy_revision_id: 'rev_1',
    });
  });

  it('a non-empty server allow list blocks other servers, and ignores scans without one', () => {
    const p = policy({ allowed_mcp_servers: ['good'] });
    expect(evaluatePolicy(p, facts({ mcp_server: 'other' }), builtin)).toMatchObject({
      action: 'blocked',
      reason: 'mcp_server_not_allowed',
      triggering_finding: 'mcp:other',
    });
    expect(evaluatePolicy(p, facts({ mcp_server: 'good', results: [] }), builtin)).toMatchObject({
      action: 'allowed',
      reason: 'default_action',
    });
    expect(evaluatePolicy(p, facts({ mcp_server: null, results: [] }), builtin).reason).toBe('default_action');
  });

  it('tool lists read the toolset; tool servers count as servers', () => {
    const tools = [
      { server: 'fs', tool_name: 'read' },
      { server: 'fs', tool_name: 'delete' },
    ];
    expect(
      evaluatePolicy(
        policy({ blocked_mcp_tools: [{ server: 'fs', tool_name: 'delete' }] }),
        facts({ mcp_tools: tools }),
        builtin,
      ),
    ).toMatchObject({ reason: 'mcp_tool_blocked', triggering_finding: 'mcp:fs/delete' });
    expect(
      evaluatePolicy(
        policy({ allowed_mcp_tools: [{ server: 'fs', tool_name: 'read' }] }),
        facts({ mcp_tools: tools }),
        builtin,
      ),
    ).toMatchObject({ reason: 'mcp_tool_not_allowed', triggering_finding: 'mcp:fs/delete' });
    expect(evaluatePolicy(policy({ blocked_mcp_servers: ['fs'] }), facts({ mcp_tools: tools }), builtin).reason).toBe(
      'mcp_server_blocked',
    );
  });

  it('rules in order, first match wins, before thresholds', () => {
    const d = evaluatePolicy(policy({ rules: [allowRule, blockRule] }), facts(), builtin);
    expect(d).toMatchObject({
      action: 'allowed',
      reason: 'rule_matched',
      matched_rule_id: 'r-allow',
      triggering_finding: null,
      notify: ['wh_1'],
    });
    const d2 = evaluatePolicy(policy({ rules: [blockRule, allowRule] }), facts(), builtin);
    expect(d2).toMatchObject({
      action: 'blocked',
      reason: 'rule_matched',
      matched_rule_id: 'r-block',
      triggering_finding: 'pii:US_SSN',
    });
  });

  it('then detector_config thresholds: configured, disabled, or built-in', () => {
    const cfg = { pii: { enabled: true, warn_above: 0.99, flag_above: 0.995, block_above: 0.999 } };
    // pii 0.99 is not above its configured warn 0.99; prompt injection 0.7 crosses the built-in warn 0.5.
    expect(evaluatePolicy(policy({ detector_config: cfg }), facts(), builtin)).toMatchObject({
      action: 'warned',
      reason: 'score_threshold',
      triggering_finding: 'prompt_injection:prompt_injection',
    });
    const off = { pii: { enabled: false, ...BUILTIN }, prompt_injection: { enabled: false, ...BUILTIN } };
    expect(evaluatePolicy(policy({ detector_config: off, default_action: 'flagged' }), facts(), builtin)).toMatchObject(
      { action: 'flagged', reason: 'default_action', triggering_finding: null },
    );
  });

  it('then default_action', () => {
    expect(evaluatePolicy(policy({ default_action: 'warned' }), facts({ results: [] }), builtin)).toMatchObject({
      action: 'warned',
      reason: 'default_action',
    });
  });

  it('observe never blocks: allowed, with the would-be action and reason', () => {
    const d = evaluatePolicy(policy({ rules: [blockRule] }, 'observe'), facts(), builtin);
    expect(d).toMatchObject({
      action: 'allowed',
      reason: 'observe_mode',
      observed_action: 'blocked',
      observed_reason: 'rule_matched',
      matched_rule_id: 'r-block',
      triggering_finding: 'pii:US_SSN',
    });
  });
});
