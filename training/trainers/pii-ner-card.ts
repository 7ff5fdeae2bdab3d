/** pii-ner's model card (models/pii-ner/card.md), written by the trainer from its numbers. */
import { metricsTable, personTable, type NerMetrics } from './pii-ner-eval.ts';
import type { TokenFeaturizerConfig } from '../../inference/token-features.ts';

export interface NerCardFacts {
  version: string;
  labels: string[];
  cfg: TokenFeaturizerConfig;
  bits: number;
  dim: number;
  lr: number;
  epochs: number;
  l2: number;
  dropout: number;
  /** Share of PERSON tokens in generated text trained without their word-identity features. */
  nameMask: number;
  /** One gazetteer word in `knockout` is treated as unknown while training. */
  knockout: number;
  seed: number;
  modelMb: string;
  gazetteerEntries: number;
  gazetteerKb: string;
  trainTokens: number;
  labelCounts: string;
  trainSeconds: number;
  dataSha256: string;
  synthTrain: number;
  synthEval: number;
  socialTrain: number;
  socialEval: number;
  metrics: NerMetrics;
  latencyMs: number;
}

/** The card's markdown. */
export function nerCard(f: NerCardFacts): string {
  const t = (fam: string): string => metricsTable(f.metrics, fam);
  return `# pii-ner ${f.version} — person / location / organization / address entities

**Task:** token classification, labels ${f.labels.map((l) => `\`${l}\``).join(', ')}. **Runtime:** \`onnx\`
(onnxruntime-node, \`inference/token-classifier.ts\` \`loadOnnxTokenClassifier\`, which returns entities with UTF-16
offsets into each input text). **Files:** \`model.onnx\` (${f.modelMb} MB, opset 13, IR 8) and \`names.tsv\` (the name
gazetteer of the featurizer, ${f.gazetteerEntries} words, ${f.gazetteerKb} kB; sha256 in the manifest entry's
\`featurizer.gazetteer\`, checked when the loader reads it).

Label choice: LOCATION = source LOCATION + GPE (cities, countries, regions); ADDRESS = STREET_ADDRESS kept
separate (a street address together with the city / state / postcode written with it is one ADDRESS
entity), because a street address is more sensitive than a place name. MISC, DATE_TIME, TITLE, NRP and
the pattern-like types (e-mail, phone, card numbers ...) are \`O\` here; they are for regex detectors.
In social text an @handle or a #hashtag is \`O\` even when built from a name (\`@john_smith\`, \`#johnsmith\`):
it is an account identifier or a topic; the name written as a name ("thanks john") is PERSON.

## Method
Tokens: runs of letters/digits/marks and single punctuation characters (\`${f.cfg.tokenizer}\`), with offsets.
Per token ${f.cfg.max_features} hashed features (\`${f.cfg.type}\`, 2^${f.bits} buckets, each valued 1/sqrt(${f.cfg.max_features})):
lowercased word, word shape (Xxxx, dd, ...) and short shape, prefixes (1–3) and suffixes (2–4),
capitalisation / digit / punctuation flags, length bucket, sentence start and newline-before flags, the
previous two and next two words, neighbours' shapes, and conjunctions (prev word + shape, word + next
word, shape trigram, prev word + word); and the case-insensitive name features (\`inference/name-features.ts\`):
the token's gazetteer class (first name / surname / common word flags of the lowercased word, with
elongations collapsed — "sarahhh" — trailing digits dropped, and run-together names as in handles and
hashtags: first+last "johnsmith", initial+last "jsmith"), the classes of the neighbours, the previous
one/two words and the next word with the class ("hey|F", "name|is|F", "F|said"), whether the token is in an
@handle, a #hashtag or an e-mail, and the whole text's capitalisation (all lowercase / all caps / mixed) with
the token's. Gazetteer (\`training/data/social-names-gazetteer.ts\`): first names and surnames of every
@faker-js/faker locale (MIT) and, as common words, faker's English word lists and a hand-written list of
chat and function words; a word in both ("will", "grace", "brown") has both flags.
Model: embedding bag (dim ${f.dim}) → +bias → ReLU → linear → softmax (\`probs\` [T, ${f.labels.length}]); all tokens of a batch
of texts go through one session run. Decoding: argmax per token; consecutive tokens with the same non-O
label form one entity (first token start → last token end); punctuation-only tokens at entity ends are
dropped; confidence = mean of the tokens' max probabilities.

Trained in TypeScript with mini-batch Adam (batch 64 tokens, lr ${f.lr} → ${Number((f.lr / 10).toPrecision(3))}, ${f.epochs} epochs, L2 ${f.l2.toExponential()},
feature dropout ${f.dropout}), seed ${f.seed}. So that names the model has never seen are found from the
gazetteer and the context, ${Math.round(f.nameMask * 100)} % of the PERSON tokens in generated text are trained without their word-identity
features (word, prefixes, suffixes, word conjunctions), and one gazetteer word in ${f.knockout} (by hash) is treated as
unknown while training (otherwise every training name is in the gazetteer and a lowercase unknown word would
never be a name). Training tokens: ${f.trainTokens} (${f.labelCounts}).
Training + evaluation took ${f.trainSeconds} s on 2 cores.

## Data
\`pii.jsonl\` (shared datasets, read at training time, never shipped; sha256 \`${f.dataSha256}\`): CoNLL-2003
\`eng.train\` (Reuters news, pre-tokenised) and microsoft/presidio-research synthetic sentences (templates
whose id % 5 != 0). Plus ${f.synthTrain} generated sentences (\`training/data/pii-synth.ts\`, @faker-js/faker with fixed
seeds, 26 locales incl. Japanese, Chinese, Russian, Arabic, Korean, Greek names): messages, forms, e-mails and
requests with names, street addresses, cities, countries and companies, with casing variants (15 % all
lowercase, 5 % all caps, 10 % lowercase names) so that lowercase and unusual names are covered, and
sentences without entities (capitalised common words). Plus 2,000 structured-identifier sentences
(\`training/data/pii-structured.ts\`: e-mails, phones, SSNs, cards, IBANs, account numbers, IPs, MACs, VINs next
to names and US street addresses; only PERSON and ADDRESS are NER labels there, the identifiers are
\`O\`, which teaches that an identifier is not a name — the regex recognizers report identifiers). Plus
${f.socialTrain} social-media messages (\`training/data/social-names.ts\`, TRAIN templates and TRAIN name lists): tweets,
chat and forum lines, mostly lowercase, with @handles, #hashtags, emoji, typos, elongations, shouting,
names that are common words next to their benign twins ("will" the name, "i will" the verb) and messages
with no name (about a third).

**Validation (held out by source):** CoNLL-2003 \`eng.testa\`; presidio templates with id % 5 == 0; ${f.synthEval}
faker sentences from EVAL templates (every fourth template, never used in training); 400 structured
sentences from EVAL templates; ${f.socialEval} social-media messages from the social EVAL templates, whose names,
handles, hashtags, emoji, carriers and name/word twins are disjoint from TRAIN's (one name in five is a
hand-written name in no faker list, so not in the gazetteer). End-to-end numbers with the regex recognizers:
\`npm run eval:sets && npm run eval -- --detector pii --tier accurate --input models/.eval/pii.jsonl --output /tmp/pii.jsonl\`
(and \`models/.eval/pii-social.jsonl\` for the social set).

## Metrics (entity level; strict = exact span and label)
PERSON per source:

${personTable(f.metrics, [
  ['ALL', 'all held-out data'],
  ['conll2003:eng.testa', 'CoNLL-2003 eng.testa'],
  ['presidio-synth:heldout-templates', 'presidio held-out templates'],
  ['generated/faker-eval-templates', 'faker held-out templates'],
  ['generated/structured-eval-templates', 'structured-identifier held-out templates'],
  ['generated/social-eval-templates', 'social text (EVAL templates)'],
])}

All held-out data:

${t('ALL')}

CoNLL-2003 eng.testa:

${t('conll2003:eng.testa')}

presidio held-out templates:

${t('presidio-synth:heldout-templates')}

faker held-out templates:

${t('generated/faker-eval-templates')}

structured-identifier held-out templates:

${t('generated/structured-eval-templates')}

social text, EVAL templates (PERSON only):

${t('generated/social-eval-templates')}

Latency (onnxruntime, 1 thread, median): ${f.latencyMs} ms per 1,000 characters (tokenization and
featurization included).

## Known weaknesses
- No BIO tags: two adjacent entities of the same type with nothing between them merge into one.
- Word-level context only (±2 words); long-range cues are missed. Lowercase names are found from context
  ("my name is", "hey", "thanks", "mr") and from the gazetteer; a name in no list and with no cue around it
  is often missed, and a common word that is also a name ("will", "grace") depends on its context.
- The social-text numbers are on generated text (our templates); real chat has more variety. A name that
  is also a common word ("summer", "hunter", "joy") is often missed or, as a word, sometimes tagged.
- CoNLL is 1990s Reuters news (sports results, politics). ORGANIZATION vs LOCATION confusion for sports
  teams and countries (CoNLL convention).
- Addresses: formats outside the faker locales used (US, UK, DE, FR, ES, IT, NL, IN, BR) are weaker.

## Retrain
\`npm run train:pii-ner\` from the repo root (reads \`../shared/datasets\`, or \`DATASETS_DIR\`); rewrites
\`models/pii-ner/model.onnx\`, \`models/pii-ner/names.tsv\`, this card and the manifest entry. Deterministic.
`;
}
