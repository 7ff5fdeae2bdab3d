/**
 * The language of an evaluation row that carries none: from its `source` where the path names it (the
 * public validation sets' `owner/repo:path[#subset]` strings), else from the script of its text.
 */

/** Sources whose path names the language: the capture is the code; `sp` is XSafety's name for Spanish. */
const SOURCE_PATTERNS: readonly RegExp[] = [
  /MultiJail\.csv#([a-z]{2})$/,
  /Multilingual_safety_benchmark:([a-z]{2})\//,
  /xquad\.([a-z]{2})\.json/,
  /MLMA_hate_speech:.*#([a-z]{2})$/,
];
const CODE_ALIASES: Readonly<Record<string, string>> = { sp: 'es' };

/** Single-language sources whose path does not say so (the validation README's source table). */
const SOURCE_LANGUAGES: readonly [RegExp, string][] = [
  [/^skan0779\/korean-guardrail-dataset:data\/translated\//, 'ko'],
  [/^2runo\/Curse-detection-data:/, 'ko'],
  [/^jason9693\/APEACH:/, 'ko'],
  [/^kocohub\/korean-hate-speech:/, 'ko'],
  [/^sgunderscore\/hatescore-korean-hate-speech:/, 'ko'],
  [/^adlnlp\/K-MHaS:/, 'ko'],
  [/^uds-lsv\/GermEval-2018-Data:/, 'de'],
  [/^thu-coai\/COLDataset:/, 'zh'],
  [/^THUDM\/AlignBench:/, 'zh'],
  [/^PlexPt\/awesome-chatgpt-prompts-zh:/, 'zh'],
  [/^Vicomtech\/hate-speech-dataset:/, 'en'],
  [/^HannahKirk\/Hatemoji:/, 'en'],
];

/** Scripts that name one language here (Cyrillic → ru, Arabic script → ar: the languages these sets hold). */
const SCRIPTS: readonly [RegExp, string][] = [
  [/\p{Script=Hangul}/gu, 'ko'],
  [/\p{Script=Arabic}/gu, 'ar'],
  [/\p{Script=Devanagari}/gu, 'hi'],
  [/\p{Script=Bengali}/gu, 'bn'],
  [/\p{Script=Thai}/gu, 'th'],
  [/\p{Script=Greek}/gu, 'el'],
  [/\p{Script=Cyrillic}/gu, 'ru'],
];
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/gu;
const HAN = /\p{Script=Han}/gu;
const LATIN = /\p{Script=Latin}/gu;
const ENGLISH_WORDS = new Set(
  'the a an and or of to in on for with is are was be it this that you your i me my we what how can do does not please from by as at if which who write give tell about'.split(
    ' ',
  ),
);

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

/**
 * `en`, an ISO 639-1 code, `latin-other` (Latin script, not English) or `und` (no letters). A non-Latin
 * script wins when it makes at least a fifth of the letters (a CJK character stands for a word);
 * kana among Han characters make it Japanese.
 */
export function languageOf(source: string | undefined, text: string): string {
  if (source) {
    for (const re of SOURCE_PATTERNS) {
      const code = re.exec(source)?.[1];
      if (code) return CODE_ALIASES[code] ?? code;
    }
    for (const [re, lang] of SOURCE_LANGUAGES) if (re.test(source)) return lang;
  }
  const kana = count(text, KANA);
  const han = count(text, HAN);
  const scripts: [number, string][] = SCRIPTS.map(([re, lang]) => [count(text, re), lang]);
  scripts.push([kana + han, kana > 0 && kana >= 0.05 * (kana + han) ? 'ja' : 'zh']);
  const latin = count(text, LATIN);
  const [top, lang] = scripts.reduce((a, b) => (b[0] > a[0] ? b : a));
  if (top > 0 && top >= 0.2 * (top + latin)) return lang;
  if (latin === 0) return 'und';
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const english = words.filter((w) => ENGLISH_WORDS.has(w)).length;
  return english >= Math.max(1, 0.1 * words.length) ? 'en' : 'latin-other';
}
