import { tokenize, type Token, type TokenFeaturizer } from '../../inference/token-features.ts';

/** Every token of `texts` featurised into one [tokens × featuresPerToken] block, as pii-ner's batch is. */
export function featurizeRows(f: TokenFeaturizer, texts: readonly string[], L: number) {
  const toks: Token[][] = texts.map((t) => tokenize(t));
  const T = toks.reduce((a, t) => a + t.length, 0);
  const ids = new Int32Array(T * L);
  const vals = new Float32Array(T * L);
  let row = 0;
  toks.forEach((tk, i) => {
    f.featurize(texts[i]!, tk, ids, vals, row);
    row += tk.length;
  });
  return { toks, T, ids, vals };
}
