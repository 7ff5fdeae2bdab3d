/**
 * The case-insensitive name features that `hashed-token-v2` adds to `hashed-token-v1` (token-features.ts):
 * gazetteer classes of the token and its neighbours (name-gazetteer.ts), the words around a name
 * ("hey", "thanks", "my name is"), whether the token sits in an @handle, a #hashtag or an e-mail, and
 * whether the whole text is written without capitals — so a lowercase name in lowercase chat is not
 * judged by the capitalisation cues that news text teaches.
 */
import { fmix32, fnv, FNV_PRIME } from './hashing.ts';
import type { NameGazetteer } from './name-gazetteer.ts';

/** Templates appended to the v1 templates, in this order. */
export const NAME_TEMPLATES = [
  'gaz',
  'gaz-1|gaz',
  'gaz|gaz+1',
  'w-1|gaz',
  'gaz|w+1',
  'w-2|w-1|gaz',
  'handle|gaz',
  'textcase|case|gaz',
] as const;

/** A token's text as the v1 featurizer saw it: lowercased word and capitalisation. */
export interface NameTokenView {
  start: number;
  end: number;
  text: string;
  lw: string;
  /** `T` title case, `U` all caps, `l` lowercase, `o` other (digits, punctuation, mixed). */
  caseOf: string;
}

/** Capitalisation of the whole text: `lower` (no capital letter), `upper` (no small letter), or `mixed`. */
export function textCase(text: string): string {
  const lower = text.toLowerCase();
  const upper = text.toUpperCase();
  if (lower === upper) return 'none';
  if (text === lower) return 'lower';
  if (text === upper) return 'upper';
  return 'mixed';
}

/**
 * Where a token sits: `@` first word of a handle ("@jsmith"), `#` first word of a hashtag, `@_` / `#_`
 * a later word of one ("@john_smith"), `mail` after the "@" of an e-mail address, `-` elsewhere.
 */
export function handleStates(tokens: readonly { start: number; end: number; text: string }[]): string[] {
  const out = new Array<string>(tokens.length).fill('-');
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    const p = tokens[i - 1]!;
    if (p.end !== t.start) continue;
    if (p.text === '@' || p.text === '#') {
      const glued = i >= 2 && tokens[i - 2]!.end === p.start && /[\p{L}\p{N}]/u.test(tokens[i - 2]!.text);
      out[i] = glued ? (p.text === '@' ? 'mail' : '-') : p.text;
      continue;
    }
    if ((p.text === '_' || p.text === '.' || p.text === '-') && i >= 2 && tokens[i - 2]!.end === p.start) {
      const before = out[i - 2]!;
      if (before === '@' || before === '@_') out[i] = '@_';
      else if (before === '#' || before === '#_') out[i] = '#_';
      else if (before === 'mail') out[i] = 'mail';
    }
  }
  return out;
}

/** Computes the {@link NAME_TEMPLATES} feature ids of a text's tokens. */
export class NameFeatures {
  private readonly seeds: number[];

  /** `firstTemplate`: index of 'gaz' among all templates (hash seeds continue the v1 scheme). */
  constructor(
    private readonly gazetteer: NameGazetteer,
    firstTemplate: number,
    private readonly mask: number,
  ) {
    this.seeds = NAME_TEMPLATES.map((_, k) => Math.imul(firstTemplate + k + 1, 0x27d4eb2f));
  }

  /** Writes the ids at columns `col`.. of each token's row (`rowOffset + i`, stride L). */
  featurize(
    text: string,
    toks: readonly NameTokenView[],
    ids: Int32Array | Uint32Array,
    rowOffset: number,
    L: number,
    col: number,
  ): void {
    const n = toks.length;
    const gaz = toks.map((t) => this.gazetteer.classOf(t.lw));
    const handles = handleStates(toks);
    const tc = textCase(text);
    const seeds = this.seeds;
    const mask = this.mask;
    // id of the feature string parts.join('|'), hashed by streaming the parts (no string is built)
    const id = (k: number, a: string, b?: string, c?: string): number => {
      let h = fnv(seeds[k] as number, a);
      if (b !== undefined) h = fnv(pipe(h), b);
      if (c !== undefined) h = fnv(pipe(h), c);
      return fmix32(h) & mask;
    };
    for (let i = 0; i < n; i++) {
      const g = gaz[i] as string;
      const gp = i > 0 ? (gaz[i - 1] as string) : '<s>';
      const gn = i + 1 < n ? (gaz[i + 1] as string) : '</s>';
      const wp = i > 0 ? toks[i - 1]!.lw : '<s>';
      const wp2 = i > 1 ? toks[i - 2]!.lw : '<s>';
      const wn = i + 1 < n ? toks[i + 1]!.lw : '</s>';
      const base = (rowOffset + i) * L + col;
      ids[base] = id(0, g);
      ids[base + 1] = id(1, gp, g);
      ids[base + 2] = id(2, g, gn);
      ids[base + 3] = id(3, wp, g);
      ids[base + 4] = id(4, g, wn);
      ids[base + 5] = id(5, wp2, wp, g);
      ids[base + 6] = id(6, handles[i] as string, g);
      ids[base + 7] = id(7, tc, toks[i]!.caseOf, g);
    }
  }
}

/** FNV-1a state `h` continued over the "|" that joins the parts of a conjunction. */
function pipe(h: number): number {
  return Math.imul(h ^ 0x7c, FNV_PRIME);
}
