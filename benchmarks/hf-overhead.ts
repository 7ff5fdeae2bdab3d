/**
 * What serving an operator-supplied Hugging Face model costs around the model itself
 * (inference/hf-classifier.ts): per token window, (a) tokenization + offset alignment
 * (`@huggingface/tokenizers` + hf-align.ts) and the window's ids, (b) building the input tensors,
 * (c) decoding the output (text: summed softmax; token: softmax per token + entity aggregation),
 * against (d) `session.run` on the same graph, 1 intra-op thread as served, batch 1 and 8.
 * `npm run bench:hf` (options: --sizes small,base --reps N --precision fp32|int8 --batches 1,8). Target: (a+b+c)/d ≤ 10 %.
 *
 * Graphs: training/hf-fixture-graph.ts's BERT-shaped encoder with random weights — small: hidden 384,
 * 6 layers, 12 heads, FFN 1536 (~21M backbone parameters, MiniLM-class); base: hidden 768, 12 layers,
 * 12 heads, FFN 3072 (~85M, BERT-base-class). The vocabulary is the fixture's plus 2000 generated
 * words (2.1k, not 30k): its size changes only the embedding table, one gather per token, so run
 * time does not depend on it. Text: generated sentences of those words with accents, an emoji and
 * rare words split into pieces, cut to exactly one full window (510 tokens + 2 specials) or a short
 * one (62 + 2). Times are medians per window (a batch's time / its rows).
 */
import os from 'node:os';
import { Tokenizer } from '@huggingface/tokenizers';
import { buildFeeds, inputSpecs, ownedRanges, positiveScore, softmaxInto } from '../inference/hf-batch.ts';
import { aggregateEntities } from '../inference/hf-entities.ts';
import { Aligner, surfaceRules } from '../inference/hf-align.ts';
import { createHfTokenizer } from '../inference/hf-tokenizer.ts';
import { openSession } from '../inference/onnx-session.ts';
import { encoderOnnx } from '../training/hf-fixture-graph.ts';
import { buildTokenizer, tokenizerConfig } from '../training/hf-fixture-tokenizers.ts';
import { TOKEN_LABELS } from '../training/hf-fixtures.ts';
import { mulberry32, pick } from '../training/prng.ts';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] as string) : fallback;
};

const SIZES = {
  small: { hidden: 384, layers: 6, heads: 12, intermediate: 1536 },
  base: { hidden: 768, layers: 12, heads: 12, intermediate: 3072 },
} as const;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Median ms of `fn` over `reps` runs after `warm`. */
async function time(fn: () => unknown, reps: number, warm = 2): Promise<number> {
  for (let i = 0; i < warm; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(out);
}

function words(n: number): string[] {
  const rng = mulberry32(39);
  const syl = ['ka', 'lo', 'mi', 'ser', 'tan', 'vo', 'ri', 'del', 'pa', 'nu', 'gro', 'ste', 'bel', 'fin'];
  const out = new Set<string>();
  while (out.size < n) out.add(pick(syl, rng) + pick(syl, rng) + (rng() < 0.5 ? pick(syl, rng) : ''));
  return [...out];
}

const fmt = (x: number): string => (x >= 10 ? x.toFixed(1) : x.toFixed(3));

async function main(): Promise<void> {
  const sizes = arg('sizes', 'small,base').split(',') as (keyof typeof SIZES)[];
  const reps = Number(arg('reps', '0')) || 0;
  const precision = arg('precision', 'fp32') === 'int8' ? 'int8' : 'fp32';
  const batches = arg('batches', '1,8').split(',').map(Number);
  const vocab = words(2000);
  const built = buildTokenizer('bert-wordpiece', vocab);
  const tok = createHfTokenizer(built.json, tokenizerConfig('bert-wordpiece', 512));
  const lib = new (Tokenizer as unknown as new (j: object, c: object) => { encode(t: string, o: object): { tokens: string[] } })(built.json, {}); // prettier-ignore
  const aligner = new Aligner(surfaceRules(built.json));
  const rng = mulberry32(7);
  const extra = ['café', 'naïve', 'Zoë', '😀', 'unbelievably', 'Straße', '東京'];
  let text = '';
  while (tok.encode(text).ids.length < 600) {
    const n = 6 + Math.floor(rng() * 10);
    const ws = Array.from({ length: n }, () => (rng() < 0.06 ? pick(extra, rng) : pick(vocab, rng)));
    text += `${ws.join(' ')}${pick(['.', ',', '!', '?'], rng)} `;
  }
  const load = os.loadavg().map((x) => x.toFixed(2));
  console.log(`hf-overhead: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load ${load.join(' ')}; vocab ${built.vocabSize}`); // prettier-ignore
  const C = TOKEN_LABELS.length;
  for (const size of sizes) {
    const s = SIZES[size];
    const t0 = Date.now();
    const bytes = encoderOnnx({ arch: 'bert', task: 'text-classification', vocabSize: built.vocabSize, ...s, maxPositions: 512, outputs: 2, padId: 0, seed: 1, precision }); // prettier-ignore
    const { ort, session } = await openSession(bytes);
    const specs = inputSpecs(session);
    console.log(`\n${size} ${precision}: hidden ${s.hidden}, ${s.layers} layers, ${s.heads} heads (graph + session ${((Date.now() - t0) / 1000).toFixed(1)} s)`); // prettier-ignore
    for (const maxTokens of [512, 64]) {
      const body = maxTokens - 2;
      // cut after a token such that the piece alone gives exactly `body` tokens (not inside a word)
      const full = tok.encode(text);
      let piece = '';
      for (let j = body - 1; j > 0 && tok.encode(piece).ids.length !== body; j--) piece = text.slice(0, full.ends[j]);
      const enc = tok.encode(piece);
      if (enc.ids.length !== body) throw new Error(`no cut of the text gives ${body} tokens`);
      const long = maxTokens === 512;
      const r = (n: number): number => reps || n;
      const a = await time(() => tok.windows(tok.encode(piece).ids, maxTokens, maxTokens / 8), r(long ? 200 : 1000));
      const libOnly = await time(() => lib.encode(piece, { add_special_tokens: false }), r(long ? 200 : 1000));
      const tokens = lib.encode(piece, { add_special_tokens: false }).tokens;
      const alignOnly = await time(() => aligner.align(piece, tokens), r(long ? 200 : 1000));
      const row = tok.windows(enc.ids, maxTokens, maxTokens / 8)[0]!.ids;
      console.log(`  ${maxTokens} tokens (${piece.length} chars): (a) tokenize + align ${fmt(a)} ms [library ${fmt(libOnly)}, alignment ${fmt(alignOnly)}]`); // prettier-ignore
      for (const B of batches) {
        const rows = Array.from({ length: B }, () => row);
        const b = (await time(() => buildFeeds(ort, specs, rows, tok.padId), r(200))) / B;
        const { feeds } = buildFeeds(ort, specs, rows, tok.padId);
        const runs = Math.max(2, Math.round((long ? (size === 'base' ? 4 : 6) : 20) / Math.sqrt(B)));
        const d = (await time(() => session.run(feeds), r(runs), 1)) / B;
        const logits = (await session.run(feeds)).logits!.data as Float32Array;
        const cText = (await time(() => rows.forEach((_, k) => positiveScore(logits, k * 2, 2, [1])), r(1000))) / B;
        const tokenLogits = Float32Array.from({ length: B * maxTokens * C }, () => rng() * 4 - 2);
        const probs = new Float32Array(body * C);
        const owned = ownedRanges([{ first: 0, last: body }])[0]!;
        const decodeToken = (): void => {
          for (let k = 0; k < B; k++) {
            for (let t = owned.from; t < owned.to; t++) softmaxInto(tokenLogits, (k * maxTokens + 1 + t) * C, C, probs, t * C); // prettier-ignore
            aggregateEntities(piece, enc.starts, enc.ends, probs, TOKEN_LABELS);
          }
        };
        const cToken = (await time(decodeToken, r(200))) / B;
        const ratio = (c: number): string => `${(((a + b + c) / d) * 100).toFixed(2)} %`;
        console.log(
          `    batch ${B}: (b) tensors ${fmt(b)} ms, (c) decode text ${fmt(cText)} / token ${fmt(cToken)} ms, (d) session.run ${fmt(d)} ms per window → (a+b+c)/d text ${ratio(cText)}, token ${ratio(cToken)}`,
        );
      }
    }
    await session.release();
  }
  console.log(
    `\nload at the end ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
