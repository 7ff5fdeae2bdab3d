/**
 * `npm run data:diversity [-- FILE.jsonl ...] [--sample 3000] [--seed 1] [--leak 0.9]`: how varied the
 * team's written training text is, and how close it comes to the public validation set. For each JSONL
 * file (default `training/data/written/*.jsonl`; rows with `text`), and per `lang` when rows carry one:
 * rows, distinct word 1/2/3-gram ratios (distinct / total), mean and p95 nearest-neighbour cosine
 * similarity inside the set (hashed character-trigram TF vectors, `text-similarity.ts`), the same to the
 * validation set (`$DATASETS_DIR/validation/toxicity_public.jsonl` for files whose name contains
 * "toxicity", else `injection_public.jsonl`), and the rows at or above `--leak` similarity to a
 * validation row, with the first 80 characters of both for a human to check. Sets over `--sample` rows
 * are sampled (seeded) for the similarity figures. Markdown on stdout, progress on stderr.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { datasetsDir, readJsonl, REPO_ROOT } from './data/datasets.ts';
import { mulberry32, shuffleInPlace } from './prng.ts';
import {
  charTrigramVector,
  distinctNgramRatios,
  meanAndP95,
  nearestNeighbours,
  type SparseVector,
} from './text-similarity.ts';

const { values, positionals } = parseArgs({
  options: {
    sample: { type: 'string', default: '3000' },
    seed: { type: 'string', default: '1' },
    leak: { type: 'string', default: '0.9' },
  },
  allowPositionals: true,
});
const sample = Number(values.sample);
const seed = Number(values.seed);
const leakAt = Number(values.leak);
if (!Number.isInteger(sample) || sample < 2) throw new Error('--sample must be an integer ≥ 2');
if (!(leakAt > 0 && leakAt <= 1)) throw new Error('--leak must be in (0, 1]');

const writtenDir = path.join(REPO_ROOT, 'training/data/written');
const files = positionals.length
  ? positionals.map((f) => path.resolve(f))
  : existsSync(writtenDir)
    ? readdirSync(writtenDir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
        .map((f) => path.join(writtenDir, f))
    : [];
if (files.length === 0) {
  process.stderr.write(`no JSONL files given and none in ${writtenDir}\n`);
  process.exit(0);
}

interface Row {
  text: string;
  lang?: string;
}
const validationCache = new Map<string, { texts: string[]; vectors: SparseVector[] } | null>();
function validationFor(file: string): { name: string; set: { texts: string[]; vectors: SparseVector[] } | null } {
  const name = path.basename(file).includes('toxicity') ? 'toxicity_public.jsonl' : 'injection_public.jsonl';
  if (!validationCache.has(name)) {
    const p = path.join(datasetsDir(), 'validation', name);
    if (!existsSync(p)) {
      process.stderr.write(`${p} not found: no similarity to the validation set\n`);
      validationCache.set(name, null);
    } else {
      const texts = readJsonl<{ text: string }>(p).map((r) => r.text);
      validationCache.set(name, { texts, vectors: texts.map((t) => charTrigramVector(t)) });
    }
  }
  return { name, set: validationCache.get(name)! };
}

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(3));
const snippet = (t: string): string => JSON.stringify(t.replace(/\s+/g, ' ').slice(0, 80));

process.stdout.write(
  '| file | lang | rows | sampled | distinct 1g | 2g | 3g | NN in set mean | p95 | NN validation mean | p95 | ≥ leak |\n' +
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n',
);
const leakLines: string[] = [];
for (const file of files) {
  const rows = readJsonl<Record<string, unknown>>(file)
    .filter((r) => typeof r.text === 'string')
    .map((r) => ({ text: r.text as string, lang: typeof r.lang === 'string' ? r.lang : undefined }) as Row);
  const order = rows.map((_, i) => i);
  const picked = (rows.length > sample ? shuffleInPlace([...order], mulberry32(seed)).slice(0, sample) : order).sort(
    (a, b) => a - b,
  );
  const started = Date.now();
  const vectors = picked.map((i) => charTrigramVector(rows[i]!.text));
  const validation = validationFor(file);
  const toValidation = validation.set ? nearestNeighbours(vectors, validation.set.vectors) : null;

  /** One table line over `members` (indices into `picked`) and `all` (indices into `rows`). */
  const line = (lang: string, all: number[], members: number[]) => {
    const ratios = distinctNgramRatios(all.map((i) => rows[i]!.text));
    const inSet = meanAndP95(nearestNeighbours(members.map((m) => vectors[m]!)).sim);
    const val = toValidation ? meanAndP95(members.map((m) => toValidation.sim[m]!)) : null;
    const leaks = toValidation ? members.filter((m) => toValidation.sim[m]! >= leakAt).length : null;
    process.stdout.write(
      `| ${path.relative(REPO_ROOT, file)} | ${lang} | ${all.length} | ${members.length} | ${ratios.map(f3).join(' | ')} | ${f3(inSet?.mean)} | ${f3(inSet?.p95)} | ${f3(val?.mean)} | ${f3(val?.p95)} | ${leaks ?? '–'} |\n`,
    );
  };
  line(
    '(all)',
    order,
    picked.map((_, m) => m),
  );
  const langs = [...new Set(rows.map((r) => r.lang).filter((l): l is string => l !== undefined))].sort();
  for (const lang of langs)
    line(
      lang,
      rows.flatMap((r, i) => (r.lang === lang ? [i] : [])),
      picked.flatMap((i, m) => (rows[i]!.lang === lang ? [m] : [])),
    );
  if (toValidation && validation.set) {
    const hits = picked.map((_, m) => m).filter((m) => toValidation.sim[m]! >= leakAt);
    if (hits.length)
      leakLines.push(
        `\n${path.relative(REPO_ROOT, file)}: ${hits.length} rows with similarity ≥ ${leakAt} to ${validation.name}:`,
        ...hits.map(
          (m) =>
            `- ${toValidation.sim[m]!.toFixed(3)} ${snippet(rows[picked[m]!]!.text)} ~ ${snippet(validation.set!.texts[toValidation.index[m]!]!)}`,
        ),
      );
  }
  process.stderr.write(`${file}: ${rows.length} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
if (leakLines.length) process.stdout.write(`${leakLines.join('\n')}\n`);
