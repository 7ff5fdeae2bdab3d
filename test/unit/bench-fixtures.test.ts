import { describe, expect, it } from 'vitest';
import {
  bodySource,
  cut,
  fill,
  MARKER_WIDTH,
  markerOf,
  scanTemplate,
  SLOT,
  slotted,
  weave,
} from '../../benchmarks/body-source.ts';
import { documentTemplates, standardTemplates } from '../../benchmarks/fixtures.ts';
import { MIX_PER_MILLE, MIX_SURFACE, mixRequests, mixTemplates, type MixKind } from '../../benchmarks/mix-fixtures.ts';

const textOf = (body: string) => (JSON.parse(body) as { content: { text: string } }).content.text;
const REPEATS: MixKind[] = ['system_prompt', 'tool_spec'];

describe('benchmark bodies: marker slots', () => {
  it('a marker is exactly as wide as its slot, so lengths stay exact', () => {
    expect(markerOf(7)).toBe('000007');
    expect(markerOf(10 ** MARKER_WIDTH + 3)).toBe('000003');
    expect(SLOT).toHaveLength(MARKER_WIDTH);
    expect(cut(`abc${SLOT}`, 5)).toBe('abc..'); // a slot the cut splits leaves no private-use characters
    expect(cut(`abc${SLOT}`, 3 + MARKER_WIDTH)).toBe(`abc${SLOT}`);
  });

  it('weave leaves no stretch longer than `every` without a slot, even in short texts', () => {
    let i = 0;
    const sentences = () => `Sentence number ${i++} of plain prose here. `;
    for (const chars of [30, 40, 200, 1_000, 5_000]) {
      const text = weave(sentences, chars, 200, () => slotted('Ref {id}. '));
      expect(text).toHaveLength(chars);
      expect(text).toContain(SLOT);
      for (const gap of text.split(SLOT).slice(0, -1)) expect(gap.length).toBeLessThanOrEqual(200 + 20);
    }
  });

  it('a source gives every request its own marker, across sources; --repeat-texts repeats the bodies', () => {
    const templates = [
      scanTemplate(slotted('a {id} b {id}'), 'user_message', 'fast'),
      scanTemplate('fixed', 'document', 'fast'),
    ];
    const a = bodySource(templates, true);
    const b = bodySource(templates, true);
    const sent = Array.from({ length: 6 }, (_, i) => (i % 2 ? b() : a()));
    const marked = sent.map(textOf).filter((t) => t !== 'fixed');
    expect(new Set(marked).size).toBe(marked.length);
    for (const t of marked) expect(t).toMatch(/^a (\d{6}) b \1$/);
    const r = bodySource(templates, false);
    expect([r(), r(), r()].map(textOf)).toEqual(['a 000000 b 000000', 'fixed', 'a 000000 b 000000']);
  });

  it('standard and document templates: exact lengths, slots in every window', () => {
    for (const t of standardTemplates(1_000, 'user_message', 'fast')) {
      expect(textOf(fill(t, '123456'))).toHaveLength(1_000);
      expect(t.length).toBeGreaterThan(2);
    }
    for (const t of documentTemplates(30_000, 'document', 'auto')) {
      const text = textOf(fill(t, '123456'));
      expect(text).toHaveLength(30_000);
      expect(Math.max(...text.split('123456').map((g) => g.length))).toBeLessThanOrEqual(400);
    }
  });
});

describe('benchmark bodies: the realistic mix', () => {
  const mix = mixRequests();

  it('is deterministic for a seed and differs for another', () => {
    expect(mixRequests()).toEqual(mix);
    expect(mixRequests(1000, 26)).not.toEqual(mix);
    expect(mixTemplates('auto')).toEqual(mixTemplates('auto'));
  });

  it('has the documented composition and surfaces', () => {
    expect(Object.values(MIX_PER_MILLE).reduce((a, b) => a + b, 0)).toBe(1000);
    for (const [kind, perMille] of Object.entries(MIX_PER_MILLE) as [MixKind, number][]) {
      const mine = mix.filter((q) => q.kind === kind);
      expect(mine.length, kind).toBe(perMille);
      for (const q of mine) expect(q.surface).toBe(MIX_SURFACE[kind]);
    }
    const share = (k: MixKind) => mixRequests(3000, 7).filter((q) => q.kind === k).length / 3000;
    expect(share('chat')).toBeCloseTo(0.55, 2);
    expect(share('attack')).toBeCloseTo(0.05, 2);
  });

  it('keeps each kind within its length range', () => {
    const ranges: Partial<Record<MixKind, [number, number]>> = {
      chat: [40, 600],
      assistant: [200, 1500],
      tool_result: [300, 3000],
      document: [2000, 8000],
      attack: [200, 800],
      pii: [200, 800],
    };
    for (const q of mix) {
      const range = ranges[q.kind];
      if (!range) continue;
      expect(q.text.length, q.kind).toBeGreaterThanOrEqual(range[0]);
      expect(q.text.length, q.kind).toBeLessThanOrEqual(range[1]);
    }
  });

  it('only system prompts and tool descriptions repeat: every other text carries a marker', () => {
    for (const q of mix) {
      if (REPEATS.includes(q.kind)) expect(q.text).not.toContain(SLOT);
      else expect(q.text, q.kind).toContain(SLOT);
    }
    const repeats = new Set(mix.filter((q) => REPEATS.includes(q.kind)).map((q) => q.text));
    expect(repeats.size).toBeLessThanOrEqual(10);
    // filled with distinct markers, no 500-character window of the other texts repeats
    let n = 0;
    const windows = new Set<string>();
    let total = 0;
    for (const q of mix) {
      if (REPEATS.includes(q.kind)) continue;
      const text = q.text.split(SLOT).join(markerOf(n++));
      for (let i = 0; i + 500 <= text.length; i += 500, total++) windows.add(text.slice(i, i + 500));
    }
    expect(windows.size).toBe(total);
  });

  it('templates keep lengths exact once filled', () => {
    const templates = mixTemplates('auto');
    mix.forEach((q, i) => expect(textOf(fill(templates[i]!, markerOf(i)))).toHaveLength(q.text.length));
  });
});
