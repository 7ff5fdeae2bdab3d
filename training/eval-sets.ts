/**
 * `npm run eval:sets [-- --out DIR]` writes the held-out validation sets as JSONL for `npm run eval`
 * (default DIR `models/.eval/`, gitignored: the files hold dataset text, which is never committed):
 * - `injection.jsonl`: held-out injection families, translated EVAL templates, hard negatives (EVAL templates);
 * - `injection-obfuscated.jsonl`: held-out positives and negatives (≤ 800 chars) each obfuscated one way
 *   (leetspeak, homoglyphs, zero-width, base64, hex, mixed; benign rows get wrappers that do not ask to
 *   follow the encoded text), `source` = `obfuscated/<kind>/<label>`;
 * - `toxicity.jsonl`: held-out toxicity families (family `sources`), toxicity hard negatives (EVAL templates)
 *   and functional VALIDATION rows (family `functional`, source `generated/functional-val#<functionality>`;
 *   also alone in `toxicity-functional.jsonl`) and discussion-comment VALIDATION rows (family `comments`,
 *   source `generated/comments-val#<kind>`);
 * - `pii.jsonl`: held-out pii sources (CoNLL testa, presidio held-out templates; labels outside the eval
 *   set are not scored), faker NER sentences and structured-identifier sentences from EVAL templates;
 * - `pii-phones.jsonl`: phones in shapes the structured generator does not produce (`data/phone-shapes.ts`),
 *   `source` = `generated/phone-shapes/<shape>`.
 * - `pii-social.jsonl`: PERSON in lowercase, noisy social-media text from the EVAL templates of
 *   `data/social-names.ts`, `source` = `generated/social-names/<names in the gazetteer | unlisted names | no names>`.
 * - `family-<name>.jsonl` for each threat family (`jailbreak_roleplay`, `instruction_override`,
 *   `indirect_instruction`, `multilingual`): rows of the family's VALIDATION generator (`data/families/`,
 *   wording disjoint from its TRAIN generator), attacks and their benign twins, with `family`; `source`
 *   names the language or carrier; documents carry their `surface` (`document`, `tool_result`);
 * - `family-adversarial_suffix.jsonl`: pi-suffix's validation generator (`data/suffix-attacks.ts`): GCG/DSN-like
 *   suffix attacks and noise-like benign prompts as user messages, bare noise as `document`s.
 * `families.jsonl` holds them all plus the rows of `injection.jsonl` (`family` `dataset_holdout`: whole-source
 * hold-out; `benign_trigger_words`: negatives only).
 * Every row: `{text, label | spans, source}`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  datasetsDir,
  PII_HELDOUT_FAMILIES,
  piiFamily,
  readJsonl,
  REPO_ROOT,
  TOXICITY_HELDOUT_FAMILIES,
  toxicityFamily,
  type LabeledRow,
  type PiiRow,
} from './data/datasets.ts';
import { injectionHardNegativesEval, toxicityHardNegativesEval } from './data/hard-negatives.ts';
import { toxicityCommentsVal } from './data/toxicity-comments/index.ts';
import { toxicityFunctionalVal } from './data/toxicity-functional/index.ts';
import { familySource, familyVal, THREAT_FAMILIES } from './data/families/index.ts';
import { OBFUSCATIONS, obfuscate } from './data/obfuscate.ts';
import { piiStructuredEval } from './data/pii-structured.ts';
import { phoneShapesEval } from './data/phone-shapes.ts';
import { piiSynthEval } from './data/pii-synth.ts';
import { socialNamesEval } from './data/social-names.ts';
import { unlistedEvalNames } from './data/social-names-pools.ts';
import { suffixValidationSet } from './data/suffix-attacks.ts';
import { mulberry32 } from './prng.ts';
import { loadInjectionData } from './trainers/injection-data.ts';

const { values } = parseArgs({ options: { out: { type: 'string', default: path.join(REPO_ROOT, 'models/.eval') } } });
const out = path.resolve(values.out as string);
mkdirSync(out, { recursive: true });
const write = (name: string, rows: object[]) => {
  writeFileSync(path.join(out, name), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  process.stderr.write(`${path.join(out, name)}: ${rows.length} rows\n`);
};

// prompt injection
const inj = loadInjectionData(() => undefined);
// `family` puts the whole-source hold-out and the trigger-word negatives into eval's per-family table
const injectionRows = [
  ...inj.val.map((e) => ({ text: e.text, label: e.label, source: e.family, family: 'dataset_holdout' })),
  ...injectionHardNegativesEval().map((h) => ({
    text: h.text,
    label: 0,
    source: `generated/hard-negatives-eval#${h.category}`,
    family: 'benign_trigger_words',
  })),
];
write('injection.jsonl', injectionRows);

const rng = mulberry32(31337);
const obfuscated: { text: string; label: number; source: string }[] = [];
let k = 0;
for (const e of inj.val) {
  if (e.text.length > 800) continue;
  const kind = OBFUSCATIONS[k++ % OBFUSCATIONS.length]!;
  obfuscated.push({
    text: obfuscate(e.text, kind, rng, e.label === 0),
    label: e.label,
    source: `obfuscated/${kind}/${e.label === 1 ? 'positive' : 'negative'}`,
  });
}
write('injection-obfuscated.jsonl', obfuscated);

// threat families (validation generators)
const familyRows = THREAT_FAMILIES.map((f) =>
  familyVal(f).map((r) => ({
    text: r.text,
    label: r.label,
    source: familySource(r),
    family: r.family,
    ...(r.surface ? { surface: r.surface } : {}),
  })),
);
THREAT_FAMILIES.forEach((f, i) => write(`family-${f}.jsonl`, familyRows[i] as object[]));
// adversarial suffixes (pi-suffix's validation generator): attacks and noise-like benign prompts as user
// messages, bare noise (code, JSON, logs, tables, …) as documents
const suffixRows = suffixValidationSet().map((e) => ({
  text: e.text,
  label: e.label,
  source: `generated/suffix-val/${e.kind}`,
  family: 'adversarial_suffix',
  ...(e.kind.startsWith('doc:') ? { surface: 'document' } : {}),
}));
write('family-adversarial_suffix.jsonl', suffixRows);
write('families.jsonl', [...familyRows.flat(), ...suffixRows, ...injectionRows]);

// toxicity
const held = new Set(TOXICITY_HELDOUT_FAMILIES);
const tox: { text: string; label: number; source: string; family?: string }[] = readJsonl<LabeledRow>(
  path.join(datasetsDir(), 'toxicity.jsonl'),
)
  .map((r) => ({ text: r.text, label: r.label === 1 ? 1 : 0, source: toxicityFamily(r.source), family: 'sources' }))
  .filter((r) => held.has(r.source));
for (const h of toxicityHardNegativesEval())
  tox.push({ text: h.text, label: 0, source: `generated/hard-negatives-eval#${h.category}` });
// functional VALIDATION rows (another author's templates): per functionality as the source, one family
const functional = toxicityFunctionalVal().map((r) => ({
  text: r.text,
  label: r.label,
  source: `generated/functional-val#${r.functionality}`,
  family: 'functional',
}));
write('toxicity-functional.jsonl', functional);
// discussion comments (VALIDATION spec): wiki talk, news, forum, review and code-review comment styles
const comments = toxicityCommentsVal().map((r) => ({
  text: r.text,
  label: r.label,
  source: `generated/comments-val#${r.kind}`,
  family: 'comments',
}));
write('toxicity.jsonl', [...tox, ...functional, ...comments]);

// pii
const pii: { text: string; spans: { start: number; end: number; label: string }[]; source: string }[] = [];
for (const r of readJsonl<PiiRow>(path.join(datasetsDir(), 'pii.jsonl'))) {
  const family = piiFamily(r.source);
  if (PII_HELDOUT_FAMILIES.includes(family)) pii.push({ text: r.text, spans: r.spans ?? [], source: family });
}
for (const s of piiSynthEval())
  pii.push({ text: s.text, spans: s.spans, source: 'generated/faker-ner-eval-templates' });
for (const s of piiStructuredEval())
  pii.push({ text: s.text, spans: s.spans, source: 'generated/structured-eval-templates' });
write('pii.jsonl', pii);
// phone shapes the structured generator does not produce (extensions, call prefixes, invalid-but-plausible)
write(
  'pii-phones.jsonl',
  phoneShapesEval().map((p) => ({ text: p.text, spans: p.spans, source: `generated/phone-shapes/${p.shape}` })),
);
// PERSON in social-media text (EVAL templates and names; some names are in no list the gazetteer knows)
const unlisted = unlistedEvalNames();
write(
  'pii-social.jsonl',
  socialNamesEval().map((s) => ({
    text: s.text,
    spans: s.spans,
    source: `generated/social-names/${s.spans.length === 0 ? 'no-names' : s.names.some((n) => unlisted.has(n)) ? 'unlisted-names' : 'listed-names'}`,
  })),
);
