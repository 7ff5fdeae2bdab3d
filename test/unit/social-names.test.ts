import { describe, expect, it } from 'vitest';
import { NameGazetteer } from '../../inference/name-gazetteer.ts';
import { socialNamesEval, socialNamesTrain, socialTemplates } from '../../training/data/social-names.ts';
import { buildGazetteerTsv } from '../../training/data/social-names-gazetteer.ts';
import { socialPools, unlistedEvalNames, type SocialPools } from '../../training/data/social-names-pools.ts';

const disjoint = (a: Iterable<string>, b: Iterable<string>): string[] => {
  const sb = new Set(b);
  return [...new Set(a)].filter((x) => sb.has(x));
};

describe('social-text name generator: TRAIN and EVAL share nothing', () => {
  const train = socialNamesTrain(1500);
  const evalRows = socialNamesEval(600);

  it('no template in common', () => {
    expect(disjoint(socialTemplates('train'), socialTemplates('eval'))).toEqual([]);
    expect(new Set(train.map((r) => r.template.split('/')[1]))).toEqual(new Set(['train']));
    expect(new Set(evalRows.map((r) => r.template.split('/')[1]))).toEqual(new Set(['eval']));
  });

  it('no slot value in common: names, name/word twins, handles, hashtags, emoji, carriers', () => {
    const t = socialPools('train');
    const e = socialPools('eval');
    for (const k of ['first', 'last', 'twinNames', 'handles', 'hashtags', 'emoji'] as (keyof SocialPools)[])
      expect(disjoint(t[k], e[k]), k).toEqual([]);
    expect(disjoint(t.first, e.last)).toEqual([]);
    expect(disjoint(t.last, e.first)).toEqual([]);
    // the bare message is no carrier; every wrapper is one split's own
    const wrappers = (p: SocialPools) => p.carriers.filter((c) => c !== '{x}');
    expect(disjoint(wrappers(t), wrappers(e))).toEqual([]);
  });

  it('the generated rows use only their own names and handles', () => {
    expect(
      disjoint(
        train.flatMap((r) => r.names),
        evalRows.flatMap((r) => r.names),
      ),
    ).toEqual([]);
    const handles = (rows: { text: string }[]) => rows.flatMap((r) => r.text.match(/@\w+/g) ?? []);
    expect(disjoint(handles(train), handles(evalRows))).toEqual([]);
  });

  it('spans are PERSON names inside the text; handles and hashtags are never spans', () => {
    for (const r of [...train, ...evalRows]) {
      for (const s of r.spans) {
        expect(s.label).toBe('PERSON');
        const span = r.text.slice(s.start, s.end);
        expect(span.trim()).toBe(span);
        expect(span.length).toBeGreaterThan(1);
        expect(r.text.charAt(s.start - 1)).not.toMatch(/[@#_]/);
      }
    }
  });

  it('has messages without names, lowercase text, and shouting', () => {
    for (const rows of [train, evalRows]) {
      const none = rows.filter((r) => r.spans.length === 0).length / rows.length;
      expect(none).toBeGreaterThan(0.2);
      expect(rows.filter((r) => r.text === r.text.toLowerCase()).length / rows.length).toBeGreaterThan(0.6);
      expect(rows.some((r) => r.text === r.text.toUpperCase() && /[A-Z]/.test(r.text))).toBe(true);
    }
  });

  it('is deterministic', () => {
    expect(socialNamesEval(50)).toEqual(socialNamesEval(50));
  });

  it("EVAL's unlisted names are in no gazetteer list", () => {
    const gaz = new NameGazetteer(buildGazetteerTsv());
    const unlisted = [...unlistedEvalNames()];
    expect(unlisted.length).toBeGreaterThan(30);
    for (const n of unlisted) expect(gaz.flagsOf(n), n).toBe('-');
  });
});
