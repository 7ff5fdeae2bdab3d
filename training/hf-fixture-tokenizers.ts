/**
 * tokenizer.json files of the three tokenizer families operators bring (test fixtures for
 * inference/hf-tokenizer.ts), each from a small vocabulary written here, so tests can work token ids
 * out by hand:
 * - `bert-wordpiece`: BertNormalizer (lowercase, accents stripped, CJK split), BertPreTokenizer,
 *   WordPiece with `##`, TemplateProcessing `[CLS] $A [SEP]`;
 * - `deberta-unigram`: NFKC (cased), Metaspace `▁` (prepend always), Unigram with scores,
 *   TemplateProcessing `[CLS] $A [SEP]` (DeBERTa-v2/v3 style);
 * - `roberta-bpe`: ByteLevel (no prefix space), BPE whose merges are built from our own word list,
 *   RobertaProcessing `<s> $A </s>`, ByteLevel decoder, `padding.pad_id` 1.
 *
 * Ids (the tests rely on them):
 * - WordPiece: 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK]; 5–11 PUNCT; 12 + i WORDS[i]; 42–67 a–z;
 *   68–93 ##a–##z; 94–97 ##ing ##ed ##er ##ly; 98 世 99 界; then extra words.
 * - Unigram: 0 [PAD] 1 [CLS] 2 [SEP] 3 [UNK] 4 [MASK]; 5 ▁; 6–12 PUNCT; 13 + i ▁WORDS[i];
 *   43 + j ▁CAPS[j]; 47–72 a–z; 73–76 ing ed er ly; then extra words (▁word).
 * - BPE: 0 <s> 1 <pad> 2 </s> 3 <unk> 4 <mask>; 5 + 2i WORDS[i], 6 + 2i Ġ WORDS[i]; 65 + 2j CAPS[j],
 *   66 + 2j Ġ CAPS[j]; 73 + b the byte b (GPT-2's byte-to-unicode characters); then extra words
 *   (bare, Ġ), then the intermediate tokens of the merges.
 */

export type HfTokenizerKind = 'bert-wordpiece' | 'deberta-unigram' | 'roberta-bpe';

/** The word list every vocabulary holds whole (ids in the header). */
export const WORDS = [
  'ignore', 'previous', 'instructions', 'all', 'the', 'and', 'reveal', 'system', 'prompt', 'hello',
  'world', 'my', 'name', 'is', 'in', 'lives', 'paris', 'cafe', 'override', 'zoltan',
  'please', 'summarize', 'this', 'document', 'for', 'to', 'you', 'are', 'now', 'of',
] as const; // prettier-ignore
/** Capitalised words the cased vocabularies (Unigram, BPE) hold as whole tokens. */
export const CAPS = ['Ignore', 'Hello', 'Zoltan', 'Paris'] as const;
/** Punctuation tokens of the WordPiece and Unigram vocabularies. */
export const PUNCT = ['.', ',', '!', '?', "'", '-', ':'] as const;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');
const SUFFIXES = ['ing', 'ed', 'er', 'ly'];

/** A tokenizer.json object and what the fixture graph needs from its vocabulary. */
export interface BuiltTokenizer {
  json: Record<string, unknown>;
  vocabSize: number;
  padId: number;
  /** ids of the tokens that spell `word` whole (any case, with or without the word-start marker) */
  idsOf(word: string): number[];
}

const special = (id: number, content: string): Record<string, unknown> => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

const template = (cls: [string, number], sep: [string, number]): Record<string, unknown> => ({
  type: 'TemplateProcessing',
  single: [
    { SpecialToken: { id: cls[0], type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: sep[0], type_id: 0 } },
  ],
  pair: [
    { SpecialToken: { id: cls[0], type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: sep[0], type_id: 0 } },
    { Sequence: { id: 'B', type_id: 1 } },
    { SpecialToken: { id: sep[0], type_id: 1 } },
  ],
  special_tokens: {
    [cls[0]]: { id: cls[0], ids: [cls[1]], tokens: [cls[0]] },
    [sep[0]]: { id: sep[0], ids: [sep[1]], tokens: [sep[0]] },
  },
});

/** token → ids whose surface (markers stripped) is `word`, case-insensitively */
function finder(vocab: Map<string, number>, strip: (t: string) => string): (word: string) => number[] {
  return (word) => {
    const w = word.toLowerCase();
    const out: number[] = [];
    for (const [t, id] of vocab) if (strip(t).toLowerCase() === w) out.push(id);
    return out;
  };
}

function wordPiece(extra: readonly string[]): BuiltTokenizer {
  const list = [
    '[PAD]',
    '[UNK]',
    '[CLS]',
    '[SEP]',
    '[MASK]',
    ...PUNCT,
    ...WORDS,
    ...LETTERS,
    ...LETTERS.map((l) => `##${l}`),
    ...SUFFIXES.map((s) => `##${s}`),
    '世',
    '界',
  ];
  for (const w of extra) if (!list.includes(w.toLowerCase())) list.push(w.toLowerCase());
  const vocab = new Map(list.map((t, i) => [t, i]));
  return {
    vocabSize: list.length,
    padId: 0,
    idsOf: finder(vocab, (t) => t.replace(/^##/, '')),
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t, i) => special(i, t)),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: template(['[CLS]', 2], ['[SEP]', 3]),
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab),
      },
    },
  };
}

function unigram(extra: readonly string[]): BuiltTokenizer {
  const pieces: [string, number][] = [
    ['[PAD]', 0],
    ['[CLS]', 0],
    ['[SEP]', 0],
    ['[UNK]', 0],
    ['[MASK]', 0],
    ['▁', -3],
    ...PUNCT.map((p): [string, number] => [p, -4]),
    ...WORDS.map((w): [string, number] => [`▁${w}`, -2]),
    ...CAPS.map((w): [string, number] => [`▁${w}`, -2]),
    ...LETTERS.map((l): [string, number] => [l, -6]),
    ...SUFFIXES.map((s): [string, number] => [s, -3]),
  ];
  for (const w of extra) if (!pieces.some(([p]) => p === `▁${w}`)) pieces.push([`▁${w}`, -2]);
  const vocab = new Map(pieces.map(([p], i) => [p, i]));
  return {
    vocabSize: pieces.length,
    padId: 0,
    idsOf: finder(vocab, (t) => t.replace(/^▁/, '')),
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: ['[PAD]', '[CLS]', '[SEP]', '[UNK]', '[MASK]'].map((t, i) => special(i, t)),
      normalizer: { type: 'NFKC' },
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
      post_processor: template(['[CLS]', 1], ['[SEP]', 2]),
      decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
      model: { type: 'Unigram', unk_id: 3, vocab: pieces, byte_fallback: false },
    },
  };
}

/** GPT-2's reversible map of bytes to printable characters (what ByteLevel pre-tokenizers emit). */
export function byteToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const out: string[] = new Array<string>(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(keep.includes(b) ? b : 256 + n++);
  return out;
}

/** Splits `chars` by the merges so far, lowest rank first (leftmost on ties): how BPE applies them. */
function applyMerges(chars: string[], ranks: Map<string, number>): string[] {
  const parts = [...chars];
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i + 1 < parts.length; i++) {
      const r = ranks.get(`${parts[i]} ${parts[i + 1]}`);
      if (r !== undefined && r < bestRank) {
        bestRank = r;
        best = i;
      }
    }
    if (best < 0) return parts;
    parts.splice(best, 2, `${parts[best]}${parts[best + 1]}`);
  }
}

function bpe(extra: readonly string[]): BuiltTokenizer {
  const bytes = byteToUnicode();
  const enc = new TextEncoder();
  const toByteChars = (s: string): string[] => Array.from(enc.encode(s), (b) => bytes[b] as string);
  const words = [...WORDS, ...CAPS, ...extra.filter((w) => !(WORDS as readonly string[]).includes(w))];
  const list = ['<s>', '<pad>', '</s>', '<unk>', '<mask>'];
  const whole: string[] = [];
  for (const w of words) whole.push(toByteChars(w).join(''), toByteChars(` ${w}`).join(''));
  // whole words first (readable ids), then the 256 byte characters, then extra words, then merge steps
  list.push(
    ...whole.slice(0, 2 * (WORDS.length + CAPS.length)),
    ...bytes,
    ...whole.slice(2 * (WORDS.length + CAPS.length)),
  );
  const vocab = new Map(list.map((t, i) => [t, i]));
  // Each word is split by the merges so far, then merged left to right into one token: words that
  // share a beginning share its merges, and every word of the list comes out as one token.
  const merges: [string, string][] = [];
  const ranks = new Map<string, number>();
  for (const w of whole) {
    const parts = applyMerges([...w], ranks);
    let acc = parts[0] as string;
    for (const p of parts.slice(1)) {
      ranks.set(`${acc} ${p}`, merges.length);
      merges.push([acc, p]);
      acc += p;
      if (!vocab.has(acc)) vocab.set(acc, vocab.size);
    }
  }
  const G = bytes[0x20] as string;
  return {
    vocabSize: vocab.size,
    padId: 1,
    idsOf: finder(vocab, (t) => (t.startsWith(G) ? t.slice(1) : t)),
    json: {
      version: '1.0',
      truncation: null,
      padding: { strategy: 'BatchLongest', direction: 'Right', pad_to_multiple_of: null, pad_id: 1, pad_type_id: 0, pad_token: '<pad>' }, // prettier-ignore
      added_tokens: ['<s>', '<pad>', '</s>', '<unk>', '<mask>'].map((t, i) => special(i, t)),
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      post_processor: {
        type: 'RobertaProcessing',
        sep: ['</s>', 2],
        cls: ['<s>', 0],
        trim_offsets: true,
        add_prefix_space: false,
      },
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: '',
        end_of_word_suffix: '',
        fuse_unk: false,
        byte_fallback: false,
        ignore_merges: false,
        vocab: Object.fromEntries(vocab),
        merges,
      },
    },
  };
}

/** The tokenizer.json of `kind`, with `extra` words added whole to its vocabulary. */
export function buildTokenizer(kind: HfTokenizerKind, extra: readonly string[] = []): BuiltTokenizer {
  if (kind === 'bert-wordpiece') return wordPiece(extra);
  if (kind === 'deberta-unigram') return unigram(extra);
  return bpe(extra);
}

/** tokenizer_config.json of `kind` (what `transformers` writes beside tokenizer.json). */
export function tokenizerConfig(kind: HfTokenizerKind, maxTokens: number): Record<string, unknown> {
  const common = { model_max_length: maxTokens, clean_up_tokenization_spaces: false };
  if (kind === 'roberta-bpe')
    return {
      ...common,
      tokenizer_class: 'RobertaTokenizer',
      bos_token: '<s>',
      eos_token: '</s>',
      cls_token: '<s>',
      sep_token: '</s>',
      pad_token: '<pad>',
      unk_token: '<unk>',
      mask_token: '<mask>',
      add_prefix_space: false,
    };
  return {
    ...common,
    tokenizer_class: kind === 'bert-wordpiece' ? 'BertTokenizer' : 'DebertaV2Tokenizer',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
    do_lower_case: kind === 'bert-wordpiece',
  };
}
