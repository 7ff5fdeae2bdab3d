/**
 * Our `wordpiece-v1` tokenizer (inference/wordpiece.ts) written as a Hugging Face tokenizer.json, so
 * the generic operator path (@huggingface/tokenizers) reproduces its ids:
 * - normalizer: Lowercase (String#toLowerCase in the JS library, as ours), then a run of `\n` → one `\n`
 *   (ours makes a run one `<nl>` token);
 * - pre-tokenizer: Split removing whitespace other than `\n` (JavaScript's `\s`, spelled out: the
 *   library reads `\s` as Unicode White_Space, which differs on U+FEFF and U+0085), Split isolating
 *   our WORD_RE's words — a letter/digit/mark run cut every 48 characters, `\n`, one other character —
 *   then ByteLevel (no regex, no prefix space): every word as GPT-2's byte characters;
 * - model: WordPiece with `##`, its vocabulary ours written in those byte characters, plus each byte's
 *   character (word-initial and `##`) as our byte-fallback token `<0xNN>`. Greedy longest match over
 *   a word's bytes picks the same pieces as ours over its characters (a piece is whole characters, and
 *   UTF-8 is prefix-free), and a character no piece covers falls to its bytes' tokens, as ours does.
 *
 * What differs: ours cuts long words every 48 UTF-16 units, the library's regex counts code points
 * (a word of letters outside the BMP, e.g. mathematical alphanumerics, longer than 24); the Rust
 * library lowercases character by character (no final-sigma rule) and was not run here. No special
 * tokens, no post-processor, no decoder (classification needs none). `<pad>` (id 0) is the unknown
 * token only because WordPiece needs one: with every byte in the vocabulary no word is unknown.
 */
import { NL_ID, PAD_ID, type WordPieceConfig } from '../inference/wordpiece.ts';

const BYTE_BASE = 2;
const SPECIALS = 2 + 256;

/** JavaScript's `\s` less `\n`, as a regex character-class body both libraries read alike. */
const SPACE_NO_NL = '\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const WORD_CLASS = '\\p{L}\\p{N}\\p{M}';

/** GPT-2's byte → printable character table (the ByteLevel pre-tokenizer's). */
export function bytesToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const out = new Array<string>(256);
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCharCode(keep.includes(b) ? b : 256 + n++);
  return out;
}

/**
 * tokenizer.json (an object) for a `wordpiece-v1` vocabulary.
 * @throws Error when the vocabulary does not start with our special and byte tokens
 */
export function hfTokenizerJson(config: WordPieceConfig): Record<string, unknown> {
  if (config.type !== 'wordpiece-v1' || config.continuation_prefix !== '##')
    throw new Error(`not a wordpiece-v1 tokenizer with "##" pieces`);
  if (config.vocab[PAD_ID] !== '<pad>' || config.vocab[NL_ID] !== '<nl>' || config.vocab[SPECIALS - 1] !== '<0xFF>')
    throw new Error('wordpiece-v1 vocabulary: <pad>, <nl> and <0x00>..<0xFF> must come first');
  const byteChar = bytesToUnicode();
  const utf8 = new TextEncoder();
  const bl = (s: string): string => Array.from(utf8.encode(s), (b) => byteChar[b] as string).join('');
  const vocab: Record<string, number> = {};
  for (let id = SPECIALS; id < config.vocab.length; id++) {
    const p = config.vocab[id] as string;
    vocab[p.startsWith('##') ? `##${bl(p.slice(2))}` : bl(p)] = id;
  }
  // learned pieces win over a byte token of the same spelling (an ASCII character both covered and a byte)
  vocab['<pad>'] = PAD_ID;
  vocab[byteChar[10] as string] = NL_ID;
  for (let b = 0; b < 256; b++) {
    for (const key of [byteChar[b] as string, `##${byteChar[b] as string}`]) if (!(key in vocab)) vocab[key] = BYTE_BASE + b; // prettier-ignore
  }
  const m = config.max_word_chars;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [{ type: 'Lowercase' }, { type: 'Replace', pattern: { Regex: '\\n+' }, content: '\n' }],
    },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: `[${SPACE_NO_NL}]+` }, behavior: 'Removed', invert: false },
        {
          type: 'Split',
          pattern: { Regex: `[${WORD_CLASS}]{1,${m}}|\\n|[^${SPACE_NO_NL}\\n${WORD_CLASS}]` },
          behavior: 'Isolated',
          invert: false,
        },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    post_processor: null,
    decoder: null,
    model: {
      type: 'WordPiece',
      unk_token: '<pad>',
      continuing_subword_prefix: '##',
      // a word is at most max_word_chars code points of at most 4 bytes: never unknown for its length
      max_input_chars_per_word: 4 * m + 1,
      vocab,
    },
  };
}
