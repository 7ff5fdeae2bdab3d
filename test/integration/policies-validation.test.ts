// Policies: every malformed body is a 400 naming its JSON paths; every limit is accepted at its bound.
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/harness.ts';
import { body, count, create, paths, rule, usePoliciesApp } from './policies-fixture.ts';

usePoliciesApp();

describe('policy validation', () => {
  const c = (cond: unknown) => body({ rules: [rule({ when: { all_of: [cond] } })] });
  it.each<[string, unknown, string]>([
    ['a missing name', { rules: [], default_action: 'allowed' }, 'name'],
    ['a 121-char name', body({ name: 'x'.repeat(121) }), 'name'],
    ['a blank name', body({ name: '  ' }), 'name'],
    ['missing rules', { name: 'a', default_action: 'allowed' }, 'rules'],
    ['65 rules', body({ rules: Array.from({ length: 65 }, () => rule()) }), 'rules'],
    ['a bad default_action', body({ default_action: 'deny' }), 'default_action'],
    ['a bad mode', body({ mode: 'audit' }), 'mode'],
    ['an unknown field', body({ owner: 'me' }), ''],
    ['a rule without when', body({ rules: [{ name: 'r', then: { action: 'blocked' } }] }), 'rules.0.when'],
    ['when without all_of', body({ rules: [rule({ when: { any_of: [] } })] }), 'rules.0.when'],
    [
      'when with another key',
      body({ rules: [rule({ when: { all_of: [{ surface_in: ['document'] }], extra: 1 } })] }),
      'rules.0.when.extra',
    ],
    ['an empty all_of', body({ rules: [rule({ when: { all_of: [] } })] }), 'rules.0.when.all_of'],
    ['a bad rule action', body({ rules: [rule({ then: { action: 'nuke' } })] }), 'rules.0.then.action'],
    [
      'a bad notify target',
      body({ rules: [rule({ then: { action: 'blocked', notify: ['https://x'] } })] }),
      'rules.0.then.notify.0',
    ],
    ['a repeated rule id', body({ rules: [rule({ id: 'a' }), rule({ id: 'a' })] }), 'rules.1.id'],
    ['a bad rule id', body({ rules: [rule({ id: 'has space' })] }), 'rules.0.id'],
    ['an unknown detector', c({ detector: 'malware', score_above: 0.5 }), 'rules.0.when.all_of.0.detector'],
    ['a score above 1', c({ detector: 'pii', score_above: 1.5 }), 'rules.0.when.all_of.0.score_above'],
    ['a score as a string', c({ detector: 'pii', score_below: '0.5' }), 'rules.0.when.all_of.0.score_below'],
    [
      'two shapes in one condition',
      c({ detector: 'pii', score_above: 0.5, score_below: 0.9 }),
      'rules.0.when.all_of.0',
    ],
    ['no shape', c({ detector: 'pii' }), 'rules.0.when.all_of.0'],
    ['a field of another shape', c({ surface_in: ['document'], detector: 'pii' }), 'rules.0.when.all_of.0.detector'],
    ['a condition that is not an object', c('pii'), 'rules.0.when.all_of.0'],
    ['an empty label_in', c({ detector: 'pii', label_in: [] }), 'rules.0.when.all_of.0.label_in'],
    [
      'a bad min_confidence',
      c({ detector: 'pii', label_in: ['US_SSN'], min_confidence: 2 }),
      'rules.0.when.all_of.0.min_confidence',
    ],
    ['an unknown surface', c({ surface_in: ['email'] }), 'rules.0.when.all_of.0.surface_in.0'],
    ['an unknown context field', c({ context: 'user', equals: 'x' }), 'rules.0.when.all_of.0.context'],
    ['an empty equals', c({ context: 'agent_id', equals: '' }), 'rules.0.when.all_of.0.equals'],
    ['a non-boolean present', c({ context: 'agent_id', present: 'yes' }), 'rules.0.when.all_of.0.present'],
    ['a negative length', c({ content_length_above: -1 }), 'rules.0.when.all_of.0.content_length_above'],
    [
      'a nested error',
      c({ any_of: [{ surface_in: ['document'] }, { not: { detector: 'pii', score_above: 7 } }] }),
      'rules.0.when.all_of.0.any_of.1.not.score_above',
    ],
    [
      'nesting too deep',
      c({ not: { not: { not: { not: { not: { not: { surface_in: ['document'] } } } } } } }),
      'rules.0.when.all_of.0.not.not.not.not.not.not',
    ],
    [
      'too many conditions in a rule',
      c({ any_of: Array.from({ length: 64 }, () => ({ surface_in: ['document'] })) }),
      'rules.0.when.all_of',
    ],
    [
      'an unknown detector in detector_config',
      body({ detector_config: { malware: { enabled: true } } }),
      'detector_config.malware',
    ],
    [
      'warn above flag',
      body({ detector_config: { pii: { warn_above: 0.9, flag_above: 0.5, block_above: 0.95 } } }),
      'detector_config.pii',
    ],
    [
      'a threshold above 1',
      body({ detector_config: { pii: { block_above: 1.01 } } }),
      'detector_config.pii.block_above',
    ],
    [
      'a negative threshold',
      body({ detector_config: { pii: { warn_above: -0.1 } } }),
      'detector_config.pii.warn_above',
    ],
    [
      '201 blocked servers',
      body({ blocked_mcp_servers: Array.from({ length: 201 }, (_, i) => `s${i}`) }),
      'blocked_mcp_servers',
    ],
    ['a 256-char server', body({ allowed_mcp_servers: ['x'.repeat(256)] }), 'allowed_mcp_servers.0'],
    [
      '501 allowed tools',
      body({ allowed_mcp_tools: Array.from({ length: 501 }, (_, i) => ({ server: 's', tool_name: `t${i}` })) }),
      'allowed_mcp_tools',
    ],
    ['a tool without a name', body({ blocked_mcp_tools: [{ server: 's' }] }), 'blocked_mcp_tools.0.tool_name'],
  ])('rejects %s with 400 naming the JSON path', async (_label, b, path) => {
    const before = await count('policies');
    const r = await create(b);
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r)).toContain(path);
    expect(await count('policies')).toBe(before);
  });

  it('lists every error of a body at once', async () => {
    const r = await create(
      body({ name: '', rules: [rule({ when: { all_of: [{ detector: 'x', score_above: 2 }] } })] }),
    );
    expect(paths(r)).toEqual(
      expect.arrayContaining(['name', 'rules.0.when.all_of.0.detector', 'rules.0.when.all_of.0.score_above']),
    );
  });

  it('accepts every limit at its bound', async () => {
    const deep = { not: { not: { not: { not: { not: { surface_in: ['document'] } } } } } };
    const r = await create(
      body({
        name: 'x'.repeat(120),
        rules: [
          rule({
            when: { all_of: [deep, { any_of: Array.from({ length: 57 }, () => ({ surface_in: ['document'] })) }] },
          }),
          ...Array.from({ length: 63 }, () => rule()),
        ],
        detector_config: {
          pii: { warn_above: 0, flag_above: 0, block_above: 0 },
          toxicity: { warn_above: 1, flag_above: 1, block_above: 1 },
        },
        allowed_mcp_servers: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(255, 'x')),
        blocked_mcp_servers: Array.from({ length: 200 }, (_, i) => `b${i}`),
        allowed_mcp_tools: Array.from({ length: 500 }, (_, i) => ({ server: 's', tool_name: `t${i}` })),
        blocked_mcp_tools: Array.from({ length: 500 }, (_, i) => ({ server: 'x'.repeat(255), tool_name: `t${i}` })),
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.rules).toHaveLength(64);
  });
});
