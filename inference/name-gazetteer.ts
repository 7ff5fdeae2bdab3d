/**
 * The name gazetteer of the `hashed-token-v2` token featurizer: lowercased first names, surnames and
 * common (non-name) words, shipped as a model asset (`models/pii-ner/names.tsv`, pinned by sha256 in
 * the manifest entry's `featurizer.gazetteer`) and read through {@link readVerified}. It answers one
 * question per token, case-insensitively: which lists is this word in ({@link NameGazetteer.classOf}).
 */
import { MODELS_DIR, readVerified, type ModelEntry } from './manifest.ts';

/** Where the featurizer config says the gazetteer file is. */
export interface GazetteerAsset {
  file: string;
  sha256: string;
}

/** Bit flags of a word in the gazetteer file: F first name, L surname, C common word. */
const FIRST = 1;
const LAST = 2;
const COMMON = 4;
const CLASS_CACHE_MAX = 20_000;

/**
 * Lowercased name lists. File format: one `word<TAB>flags` per line, flags a subset of `FLC`; lines
 * starting with `#` are comments.
 */
export class NameGazetteer {
  private readonly flags = new Map<string, number>();
  private readonly cache = new Map<string, string>();

  /** @throws when a line is not `word<TAB>flags` */
  constructor(tsv: string) {
    for (const line of tsv.split('\n')) {
      if (line === '' || line.startsWith('#')) continue;
      const tab = line.indexOf('\t');
      if (tab <= 0) throw new Error(`gazetteer: bad line ${JSON.stringify(line.slice(0, 40))}`);
      let f = 0;
      for (const c of line.slice(tab + 1)) f |= c === 'F' ? FIRST : c === 'L' ? LAST : c === 'C' ? COMMON : 0;
      this.flags.set(line.slice(0, tab), f);
    }
  }

  get size(): number {
    return this.flags.size;
  }

  /** The F/L/C flags of an exact lowercased word ('' when absent). */
  flagsOf(lw: string): string {
    return flagString(this.flags.get(lw) ?? 0);
  }

  /**
   * Gazetteer class of a lowercased token, the same for "John", "john" and "JOHNNN":
   * - the word's flags (`F`, `L`, `FL`, `FC`, `C` …), looked up as written, then with letter runs of
   *   three or more collapsed to one and to two ("sarahhh", "joooohn");
   * - else, trailing digits dropped ("sarah92" → `F#`);
   * - else, a run-together name as in handles and hashtags: first name + surname ("johnsmith" → `F+L`),
   *   initial + surname ("jsmith" → `i+L`), first name + initial ("johns" is a name itself, so `F+i`
   *   only for words that are not);
   * - else `-` (a word in no list) or `p` (no letter).
   */
  classOf(lw: string): string {
    let c = this.cache.get(lw);
    if (c !== undefined) return c;
    if (this.cache.size >= CLASS_CACHE_MAX) this.cache.clear();
    c = this.computeClass(lw);
    this.cache.set(lw, c);
    return c;
  }

  private computeClass(lw: string): string {
    if (!/\p{L}/u.test(lw)) return 'p';
    const direct = this.lookup(lw);
    if (direct !== 0) return flagString(direct);
    const noDigits = lw.replace(/\d+$/, '');
    if (noDigits !== lw && noDigits.length >= 2) {
      const f = this.lookup(noDigits);
      if (f !== 0) return `${flagString(f)}#`;
    }
    const w = noDigits;
    if (w.length >= 6) {
      for (let i = 3; i <= w.length - 3; i++) {
        const a = this.flags.get(w.slice(0, i)) ?? 0;
        const b = this.flags.get(w.slice(i)) ?? 0;
        if (a & FIRST && b & LAST && !(a & COMMON) && !(b & COMMON)) return 'F+L';
      }
    }
    if (w.length >= 5) {
      const rest = this.flags.get(w.slice(1)) ?? 0;
      if (rest & LAST && !(rest & COMMON)) return 'i+L';
      const head = this.flags.get(w.slice(0, -1)) ?? 0;
      if (head & FIRST && !(head & COMMON)) return 'F+i';
    }
    return '-';
  }

  private lookup(lw: string): number {
    const f = this.flags.get(lw);
    if (f !== undefined) return f;
    if (!/(\p{L})\1\1/u.test(lw)) return 0;
    return (
      this.flags.get(lw.replace(/(\p{L})\1{2,}/gu, '$1')) ?? this.flags.get(lw.replace(/(\p{L})\1{2,}/gu, '$1$1')) ?? 0
    );
  }
}

function flagString(f: number): string {
  if (f === 0) return '-';
  return `${f & FIRST ? 'F' : ''}${f & LAST ? 'L' : ''}${f & COMMON ? 'C' : ''}`;
}

/**
 * Reads and sha256-checks the gazetteer a featurizer config names.
 * @throws ModelIntegrityError when the file is not the one the manifest pins
 */
export function loadGazetteer(asset: GazetteerAsset, dir: string = MODELS_DIR, id = 'pii-ner'): NameGazetteer {
  const entry = { id } as ModelEntry;
  return new NameGazetteer(readVerified(entry, dir, asset).toString('utf8'));
}
