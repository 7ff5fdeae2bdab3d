/**
 * The tokenizer of an operator-supplied Hugging Face model (inference/extra-models.ts): its own
 * tokenizer.json (+ tokenizer_config.json) run by `@huggingface/tokenizers`, with
 * - character offsets per token into the original text (hf-align.ts: the library gives none);
 * - the special tokens its post-processor puts around one sequence (learned by encoding a probe with
 *   and without them), added to every window;
 * - overlapping windows of at most `maxTokens` tokens, specials included, so no token goes unseen.
 *
 * A special token written in the text (`[SEP]`, `</s>`) is read as text, as `transformers` does with
 * `split_special_tokens=True`: scanned text must not be able to place separators or class tokens of
 * its own into the model's input. (A Unigram vocabulary that holds them as pieces can still match
 * them; WordPiece and byte-level BPE split them into ordinary tokens.)
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { readVerified } from './manifest.ts';
import type { ExtraModel } from './extra-models.ts';
import { Aligner, surfaceRules } from './hf-align.ts';

/** A text's tokens (special tokens excluded) and their [start, end) UTF-16 offsets into it. */
export interface HfEncoding {
  ids: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
}

/** One model input row: its ids (special tokens included) and the tokens [first, last) of the text it holds. */
export interface HfWindow {
  ids: Int32Array;
  first: number;
  last: number;
}

/** A model's tokenizer as the classifiers use it. */
export interface HfTokenizer {
  /** Token ids without special tokens, with their character offsets. */
  encode(text: string): HfEncoding;
  /** Overlapping windows over `ids`: each at most `maxTokens` long with the specials, neighbours sharing `strideTokens`. @throws when no token fits beside the specials */
  windows(ids: Int32Array, maxTokens: number, strideTokens: number): HfWindow[];
  /** ids the post-processor puts before and after one sequence (`[CLS]` / `[SEP]`, `<s>` / `</s>`) */
  readonly prefix: Int32Array;
  readonly suffix: Int32Array;
  /** the id rows are padded with (the model's padding index) */
  readonly padId: number;
}

/**
 * The part of the library's Tokenizer used here. Its own .d.ts files import each other without file
 * extensions, which NodeNext resolution refuses, so the class would type as `any`.
 */
interface LibTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[]; tokens: string[] };
  token_to_id(token: string): number | undefined;
}
const LibTokenizerClass = Tokenizer as unknown as new (json: object, config: object) => LibTokenizer;

interface TokenizerJson extends Record<string, unknown> {
  padding?: { pad_id?: number } | null;
}

/** Token ranges [first, last) of windows over `n` tokens: at most `body` each, neighbours sharing `stride`. @throws when body < 1 */
export function windowRanges(n: number, body: number, stride: number): { first: number; last: number }[] {
  if (body < 1) throw new Error(`windows: no room for tokens beside the special tokens (body ${body})`);
  const step = Math.max(1, body - Math.min(stride, body - 1));
  const out: { first: number; last: number }[] = [];
  if (n === 0) return out;
  for (let first = 0; ; first += step) {
    const last = Math.min(n, first + body);
    out.push({ first, last });
    if (last === n) return out;
  }
}

/** The special tokens around one sequence, read off the post-processor's output for a probe. @throws when the probe's tokens do not appear in it */
function probeSpecials(tok: LibTokenizer): { prefix: Int32Array; suffix: Int32Array } {
  for (const probe of ['a', 'hello', 'the', '1', '.']) {
    const body = tok.encode(probe, { add_special_tokens: false }).ids;
    if (body.length === 0) continue;
    const full = tok.encode(probe, { add_special_tokens: true }).ids;
    for (let k = 0; k + body.length <= full.length; k++) {
      if (body.every((id, i) => full[k + i] === id))
        return { prefix: Int32Array.from(full.slice(0, k)), suffix: Int32Array.from(full.slice(k + body.length)) };
    }
    throw new Error(`tokenizer.json: the post-processor changes the tokens of "${probe}", not only adds around them`);
  }
  return { prefix: new Int32Array(0), suffix: new Int32Array(0) };
}

/** The padding id: tokenizer.json's `padding.pad_id`, else the config's pad token, `[PAD]` or `<pad>`, else 0. */
function padIdOf(tok: LibTokenizer, json: TokenizerJson, config: Record<string, unknown>): number {
  if (typeof json.padding?.pad_id === 'number') return json.padding.pad_id;
  for (const t of [config.pad_token, '[PAD]', '<pad>']) {
    const name = typeof t === 'string' ? t : (t as { content?: string } | undefined)?.content;
    const id = name === undefined ? undefined : tok.token_to_id(name);
    if (id !== undefined) return id;
  }
  return 0;
}

/**
 * A tokenizer from tokenizer.json's object (and tokenizer_config.json's, if any).
 * @throws Error when the library cannot build it or its post-processor is not prefix + text + suffix
 */
export function createHfTokenizer(json: TokenizerJson, config: Record<string, unknown> = {}): HfTokenizer {
  const added = (json.added_tokens ?? []) as { special?: boolean }[];
  // the full tokenizer only tells the special tokens and the pad id; text goes through one that
  // does not split special tokens out of it
  const full = new LibTokenizerClass({ ...json, added_tokens: added }, config);
  const { prefix, suffix } = probeSpecials(full);
  const padId = padIdOf(full, json, config);
  const plainJson = { ...json, added_tokens: added.filter((t) => !t.special) };
  const tok = new LibTokenizerClass(plainJson, config);
  const aligner = new Aligner(surfaceRules(plainJson));
  return {
    prefix,
    suffix,
    padId,
    encode(text: string): HfEncoding {
      const e = tok.encode(text, { add_special_tokens: false });
      const { starts, ends } = aligner.align(text, e.tokens);
      return { ids: Int32Array.from(e.ids), starts, ends };
    },
    windows(ids: Int32Array, maxTokens: number, strideTokens: number): HfWindow[] {
      const body = maxTokens - prefix.length - suffix.length;
      return windowRanges(ids.length, body, strideTokens).map(({ first, last }) => {
        const row = new Int32Array(prefix.length + (last - first) + suffix.length);
        row.set(prefix, 0);
        row.set(ids.subarray(first, last), prefix.length);
        row.set(suffix, prefix.length + last - first);
        return { ids: row, first, last };
      });
    },
  };
}

/**
 * The model's tokenizer, its files read afresh and checked against the declared sha256.
 * @throws ModelIntegrityError when a file changed since the declaration was checked; Error when the
 *   library cannot build the tokenizer
 */
export function loadHfTokenizer(model: ExtraModel): HfTokenizer {
  const read = (file: string): Record<string, unknown> =>
    JSON.parse(
      readVerified(model.entry, model.dir, { file, sha256: model.sha256[file] as string }).toString('utf8'),
    ) as Record<string, unknown>;
  const json = read('tokenizer.json');
  const config = model.sha256['tokenizer_config.json'] ? read('tokenizer_config.json') : {};
  return createHfTokenizer(json, config);
}
