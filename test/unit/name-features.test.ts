import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { piiSynthEval } from '../../training/data/pii-synth.ts';
import { hashString } from '../../inference/hashing.ts';
import { MODELS_DIR, ModelIntegrityError, modelEntry } from '../../inference/manifest.ts';
import { handleStates, NAME_TEMPLATES, textCase } from '../../inference/name-features.ts';
import { NameGazetteer } from '../../inference/name-gazetteer.ts';
import { loadOnnxTokenClassifier } from '../../inference/token-classifier.ts';
import {
  tokenize,
  TokenFeaturizer,
  tokenFeaturizerConfig,
  type TokenFeaturizerConfig,
} from '../../inference/token-features.ts';

const GAZ = new NameGazetteer('# test\njohn\tF\nsmith\tL\nsarah\tF\nwill\tFLC\nmark\tFC\nthe\tC\nbrown\tFLC\n');
const V1 = 25;

function features(f: TokenFeaturizer, text: string): { ids: Int32Array; values: Float32Array; n: number } {
  const toks = tokenize(text);
  const L = f.config.max_features;
  const ids = new Int32Array(toks.length * L);
  const values = new Float32Array(toks.length * L);
  f.featurize(text, toks, ids, values, 0);
  return { ids, values, n: toks.length };
}

/** Every name-feature id of `text` equals the hash of its feature string. */
function expectOracle(f: TokenFeaturizer, gaz: NameGazetteer, text: string): void {
  const toks = tokenize(text);
  const L = f.config.max_features;
  const { ids } = features(f, text);
  const lw = toks.map((t) => t.text.toLowerCase());
  const g = lw.map((w) => gaz.classOf(w));
  const hs = handleStates(toks);
  const tc = textCase(text);
  const caseOf = (s: string) =>
    /^\p{Lu}\p{Ll}*$/u.test(s)
      ? 'T'
      : s.length > 1 && s === s.toUpperCase() && s !== s.toLowerCase()
        ? 'U'
        : s === s.toLowerCase() && s !== s.toUpperCase()
          ? 'l'
          : 'o';
  toks.forEach((t, i) => {
    const at = (a: string[], j: number, edge: string) =>
      (j < 0 ? '<s>' : j >= a.length ? '</s>' : (a[j] as string)) || edge;
    const want = [
      g[i],
      `${at(g, i - 1, '')}|${g[i]}`,
      `${g[i]}|${at(g, i + 1, '')}`,
      `${at(lw, i - 1, '')}|${g[i]}`,
      `${g[i]}|${at(lw, i + 1, '')}`,
      `${at(lw, i - 2, '')}|${at(lw, i - 1, '')}|${g[i]}`,
      `${hs[i]}|${g[i]}`,
      `${tc}|${caseOf(t.text)}|${g[i]}`,
    ];
    want.forEach((s, k) =>
      expect(ids[i * L + V1 + k], `${t.text} ${NAME_TEMPLATES[k]}`).toBe(
        hashString(Math.imul(V1 + k + 1, 0x27d4eb2f), s as string) & (f.config.buckets - 1),
      ),
    );
  });
}

describe('name gazetteer', () => {
  it('classes words case-insensitively, through elongations, digits and run-together names', () => {
    expect(GAZ.classOf('john')).toBe('F');
    expect(GAZ.classOf('will')).toBe('FLC');
    expect(GAZ.classOf('the')).toBe('C');
    expect(GAZ.classOf('johnnnn')).toBe('F');
    expect(GAZ.classOf('saaarah')).toBe('F');
    expect(GAZ.classOf('sarah92')).toBe('F#');
    expect(GAZ.classOf('johnsmith')).toBe('F+L');
    expect(GAZ.classOf('jsmith')).toBe('i+L');
    expect(GAZ.classOf('johnx')).toBe('F+i');
    expect(GAZ.classOf('pizza')).toBe('-');
    expect(GAZ.classOf('!')).toBe('p');
    expect(GAZ.size).toBe(7);
  });

  it('rejects a malformed line', () => {
    expect(() => new NameGazetteer('john F\n')).toThrow(/bad line/);
  });
});

describe('name features (hashed-token-v2)', () => {
  const cfg = tokenFeaturizerConfig(1 << 16, { file: 'x/names.tsv', sha256: '0'.repeat(64) });
  const v2 = new TokenFeaturizer(cfg, GAZ);
  const v1 = new TokenFeaturizer(tokenFeaturizerConfig(1 << 16));

  it('extends v1: the first 25 ids of every token are v1 ids, then one id per name template', () => {
    expect(cfg.type).toBe('hashed-token-v2');
    expect(cfg.max_features).toBe(V1 + NAME_TEMPLATES.length);
    expect(v2.featuresPerToken).toBe(cfg.max_features);
    const text = 'hey @john_smith, did Sarah see #johnsmith?? lol will u come';
    const a = features(v1, text);
    const b = features(v2, text);
    for (let i = 0; i < a.n; i++)
      expect([...b.ids.subarray(i * cfg.max_features, i * cfg.max_features + V1)]).toEqual([
        ...a.ids.subarray(i * V1, (i + 1) * V1),
      ]);
    for (const v of b.values) expect(v).toBeCloseTo(1 / Math.sqrt(cfg.max_features), 6);
  });

  it('the gazetteer class is the same for John, john and JOHN', () => {
    const col = V1; // 'gaz'
    const L = cfg.max_features;
    const id = (t: string) => features(v2, t).ids[L + col];
    expect(id('hi John')).toBe(id('hi john'));
    expect(id('hi john')).toBe(id('hi JOHN'));
    expect(id('hi john')).toBe(id('hi johnnn'));
    expect(id('hi john')).not.toBe(id('hi pizza'));
  });

  it('ids equal the hash of the feature string (string-building oracle)', () => {
    const shipped = modelEntry('pii-ner').featurizer as unknown as TokenFeaturizerConfig;
    const real = new TokenFeaturizer(shipped, undefined, MODELS_DIR);
    const realGaz = new NameGazetteer(readFileSync(path.join(MODELS_DIR, shipped.gazetteer!.file), 'utf8'));
    const texts = [
      'thanks will!! @jsmith said #johnsmith is sarah92 lol',
      'Mail John.Smith@example.com or @sarah_o_brien-x; #Will #the',
      'HEY JOHN SMITH CALL ME',
      'Élodie Dupont et İsmail Öztürk à São Paulo 👋 hi',
      ...piiSynthEval()
        .slice(0, 150)
        .map((r) => r.text),
    ];
    // Twice: the second pass reads every token from the featurizer's caches.
    for (let pass = 0; pass < 2; pass++) {
      for (const text of texts) {
        expectOracle(v2, GAZ, text);
        expectOracle(real, realGaz, text);
      }
    }
  });

  it('handle states: @handles, their later words, #hashtags and e-mail domains', () => {
    const states = (t: string) => {
      const toks = tokenize(t);
      const s = handleStates(toks);
      return Object.fromEntries(toks.map((k, i) => [k.text, s[i]]));
    };
    expect(states('@john_smith hi')).toMatchObject({ john: '@', smith: '@_', hi: '-' });
    expect(states('so #johnsmith')).toMatchObject({ johnsmith: '#', so: '-' });
    expect(states('mail john@example.com')).toMatchObject({ john: '-', example: 'mail', com: 'mail' });
    expect(states('@ john')).toMatchObject({ john: '-' });
  });

  it('text case', () => {
    expect(textCase('hey john')).toBe('lower');
    expect(textCase('HEY JOHN')).toBe('upper');
    expect(textCase('Hey John')).toBe('mixed');
    expect(textCase('123 !!')).toBe('none');
    // non-ASCII: the whole-text case mappings decide
    expect(textCase('élodie')).toBe('lower');
    expect(textCase('ÉLODIE ß')).toBe('mixed');
    expect(textCase('日本 123')).toBe('none');
  });
});

describe('the featurizer version is checked', () => {
  it("refuses an unknown type and a template list that is not this version's", () => {
    const v1 = tokenFeaturizerConfig(1 << 10);
    expect(() => new TokenFeaturizer({ ...v1, type: 'hashed-token-v9' } as unknown as TokenFeaturizerConfig)).toThrow(
      /unsupported featurizer/,
    );
    expect(() => new TokenFeaturizer({ ...v1, templates: [...v1.templates, 'extra'] })).toThrow(/templates differ/);
    const v2 = tokenFeaturizerConfig(1 << 10, { file: 'x', sha256: '0'.repeat(64) });
    expect(() => new TokenFeaturizer({ ...v2, templates: v1.templates })).toThrow(/templates differ/);
    expect(() => new TokenFeaturizer({ ...v2, gazetteer: undefined })).toThrow(/needs a gazetteer/);
  });

  it('the shipped pii-ner is v2 and its loader refuses a tampered gazetteer', async () => {
    const entry = modelEntry('pii-ner');
    const f = entry.featurizer as unknown as TokenFeaturizerConfig;
    expect(f.type).toBe('hashed-token-v2');
    expect(f.gazetteer?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const dir = mkdtempSync(path.join(tmpdir(), 'pii-ner-'));
    cpSync(path.join(MODELS_DIR, 'pii-ner'), path.join(dir, 'pii-ner'), { recursive: true });
    const file = path.join(dir, f.gazetteer!.file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('\njohn\t', '\njohm\t'));
    await expect(loadOnnxTokenClassifier(entry, dir)).rejects.toBeInstanceOf(ModelIntegrityError);
  });

  it('the shipped model finds lowercase names in chat and leaves handles and benign twins alone', async () => {
    const ner = await loadOnnxTokenClassifier(modelEntry('pii-ner'));
    const texts = ['omg sarah just texted me lol', '@john_smith thanks for the follow', 'i will be there at 5'];
    const [a, b, c] = await ner.entitiesBatch(texts);
    expect(a!.map((e) => texts[0]!.slice(e.start, e.end))).toContain('sarah');
    expect(b!.filter((e) => e.label === 'PERSON')).toEqual([]);
    expect(c!.filter((e) => e.label === 'PERSON')).toEqual([]);
    await ner.release();
  });
});
