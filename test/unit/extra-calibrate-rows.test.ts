import { describe, expect, it } from 'vitest';
import type { CalibrationRow } from '../../training/extra-calibrate-fit.ts';
import { calibrationSlices, renderSlices, sliceMetrics } from '../../training/extra-calibrate-report.ts';
import {
  assignOrigins,
  eventLabel,
  eventRows,
  MIN_ORIGIN_ROWS,
  stratifiedSample,
  type EventRow,
  type InputRow,
} from '../../training/extra-calibrate-rows.ts';

const row = (over: Partial<InputRow>): InputRow => ({
  text: 't',
  label: 0,
  group: 'prompt',
  family: 'benign',
  source: 'a/b',
  lang: 'en',
  origin: '',
  ...over,
});

describe('models:calibrate — the rows', () => {
  it('samples each family × label in proportion, at least one row each, the same rows every time', () => {
    const rows = [
      ...Array.from({ length: 600 }, (_, i) => row({ text: `benign ${i}`, family: 'benign' })),
      ...Array.from({ length: 300 }, (_, i) => row({ text: `direct ${i}`, family: 'direct', label: 1 })),
      ...Array.from({ length: 90 }, (_, i) => row({ text: `ind ${i}`, family: 'indirect', group: 'document' })),
      ...Array.from({ length: 10 }, (_, i) => row({ text: `ind+ ${i}`, family: 'indirect', label: 1 })),
    ];
    const a = stratifiedSample(rows, 100);
    const count = (f: string, l: number) => a.filter((r) => r.family === f && r.label === l).length;
    expect([count('benign', 0), count('direct', 1), count('indirect', 0), count('indirect', 1)]).toEqual([
      60, 30, 9, 1,
    ]);
    expect(
      stratifiedSample([...rows].reverse(), 100)
        .map((r) => r.text)
        .sort(),
    ).toEqual(a.map((r) => r.text).sort());
    expect(stratifiedSample(rows, 5000)).toHaveLength(rows.length);
    // toxicity rows are stratified by source
    const tox = [
      ...Array.from({ length: 50 }, (_, i) => row({ text: `x${i}`, family: 'toxicity', source: 's1' })),
      ...Array.from({ length: 50 }, (_, i) => row({ text: `y${i}`, family: 'toxicity', source: 's2' })),
    ];
    expect(new Set(stratifiedSample(tox, 10).map((r) => r.source))).toEqual(new Set(['s1', 's2']));
  });

  it('counts a source with enough benign rows of a group as its own origin, smaller ones together, events apart', () => {
    const rows = [
      ...Array.from({ length: MIN_ORIGIN_ROWS }, () => row({ source: 'big' })),
      ...Array.from({ length: 5 }, () => row({ source: 'small' })),
      row({ source: 'big', group: 'document' }),
      row({ source: 'events:feedback', family: 'events' }),
    ];
    assignOrigins(rows);
    expect(rows[0]!.origin).toBe('public:big');
    expect(rows[MIN_ORIGIN_ROWS]!.origin).toBe('public:other');
    expect(rows.at(-2)!.origin).toBe('public:other'); // big has one benign document row
    expect(rows.at(-1)!.origin).toBe('events');
  });

  it('labels events: a person’s verdict, production samples allowed as benign, red-team probes as injections', () => {
    const cases: [string, string | null, 0 | 1 | null, 0 | 1 | null][] = [
      // source, verdict, prompt_injection, toxicity
      ['reviewed', 'blocked', 1, 1],
      ['reviewed', 'flagged', 1, 1],
      ['feedback', 'allowed', 0, 0],
      ['feedback', 'warned', null, null],
      ['reviewed', null, null, null],
      ['production_sample', 'allowed', 0, 0],
      ['production_sample', 'blocked', null, null],
      ['redteam', 'allowed', 1, null],
      ['redteam', 'blocked', 1, null],
    ];
    for (const [source, verdict, pi, tox] of cases) {
      expect(eventLabel('prompt_injection', { source, verdict })).toBe(pi);
      expect(eventLabel('toxicity', { source, verdict })).toBe(tox);
    }
  });

  it('uses events only when enough carry a usable label; indirect-injection probes are documents', () => {
    const ev = (over: Partial<EventRow>): EventRow => ({
      source: 'reviewed',
      verdict: 'blocked',
      input_redacted: 'ignore it all',
      attack_class: null,
      ...over,
    });
    const events = [
      ev({}),
      ev({ verdict: 'allowed' }),
      ev({ source: 'redteam', verdict: 'allowed', attack_class: 'indirect_injection' }),
      ev({ verdict: 'warned' }),
      ev({ input_redacted: '' }),
    ];
    const used = eventRows('prompt_injection', events, 3);
    expect(used).toMatchObject({ read: 5, usable: 3, unusable: 2, used: true });
    expect(used.rows.map((r) => [r.label, r.group, r.origin, r.source])).toEqual([
      [1, 'prompt', 'events', 'events:reviewed'],
      [0, 'prompt', 'events', 'events:reviewed'],
      [1, 'document', 'events', 'events:redteam'],
    ]);
    expect(eventRows('prompt_injection', events, 4)).toMatchObject({ usable: 3, used: false, rows: [] });
  });
});

describe('models:calibrate — the figures', () => {
  const r = (label: 0 | 1, family: string, group: 'prompt' | 'document' = 'prompt'): CalibrationRow => ({
    base: 0,
    model: 0,
    label,
    group,
    origin: 'public:x',
    family,
    source: 'x',
  });
  const rows = [r(1, 'direct'), r(1, 'direct'), r(0, 'benign'), r(0, 'benign'), r(0, 'indirect', 'document')];
  const cols = {
    base: [0.6, 0.2, 0.1, 0.55, 0.95],
    stacked: [0.95, 0.8, 0.1, 0.3, 0.2],
    cross_fitted: [0.9, 0.6, 0.2, 0.4, 0.3],
  };

  it('reads recall and benign FPR at the published levels, AUC of an attacks-only family against its groups’ benign rows', () => {
    const direct = sliceMetrics('family direct', [0, 1], rows, cols);
    expect(direct.auc_against).toBe('group-benign');
    expect(direct.roc_auc).toEqual({ base: 0.75, stacked: 1, cross_fitted: 1 });
    expect(direct.recall.warn).toEqual({ base: 0.5, stacked: 1, cross_fitted: 1 });
    expect(direct.recall.block).toEqual({ base: 0, stacked: 0.5, cross_fitted: 0 });
    expect(direct.fpr.warn).toEqual({ base: null, stacked: null, cross_fitted: null });
    const benign = sliceMetrics('family benign', [2, 3], rows, cols);
    expect(benign.roc_auc.base).toBeNull();
    expect(benign.fpr.warn).toEqual({ base: 0.5, stacked: 0, cross_fitted: 0 });
  });

  it('slices all, groups and families, and renders each cell as detector / stacked / cross-fitted', () => {
    const slices = calibrationSlices('prompt_injection', rows, cols);
    expect(slices.map((s) => s.key)).toEqual([
      'all',
      'group document',
      'group prompt',
      'family benign',
      'family direct',
      'family indirect',
    ]);
    const table = renderSlices(slices);
    expect(table).toMatch(/\| family direct \| 2 \/ 0 \| 0\.750 \/ 1\.000 \/ 1\.000 ¹ \|/);
  });
});
