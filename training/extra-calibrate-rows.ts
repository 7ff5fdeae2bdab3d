/**
 * The rows `npm run models:calibrate` scores: the public validation set of the model's detector
 * (`$DATASETS_DIR/validation/`, for choosing and thresholding only, never trained on) and, when the
 * operator names an organization, its labeled events — with the surface group, family, source,
 * language and origin each row counts under.
 */
import path from 'node:path';
import type { Surface, SurfaceGroup } from '../engine/detector.ts';
import type { ExtraDetector } from '../inference/extra-models.ts';
import { datasetsDir, readJsonl, sha256Hex } from './data/datasets.ts';
import { languageOf } from './eval-language.ts';
import { sourceKey } from './eval-suite.ts';

/** A row before scoring. */
export interface InputRow {
  text: string;
  label: 0 | 1;
  group: SurfaceGroup;
  family: string;
  source: string;
  lang: string;
  /** set by `assignOrigins` */
  origin: string;
}

/** The surface a row of a group is scanned on, as `npm run train:thresholds` scans it. */
export const GROUP_SURFACE: Record<SurfaceGroup, Surface> = { prompt: 'user_message', document: 'document' };

/** A validation source with fewer benign rows in a group joins `public:other` there: one row must not weigh a percent of the rate. */
export const MIN_ORIGIN_ROWS = 100;

interface RawRow {
  text?: unknown;
  label?: unknown;
  family?: unknown;
  source?: unknown;
}

/** The validation files a detector's rows come from. */
export function validationFiles(detector: ExtraDetector): string[] {
  const dir = path.join(datasetsDir(), 'validation');
  const injection = path.join(dir, 'injection_public.jsonl');
  return detector === 'toxicity' ? [path.join(dir, 'toxicity_public.jsonl'), injection] : [injection];
}

function toRow(raw: RawRow): InputRow | null {
  if (typeof raw.text !== 'string' || raw.text === '' || (raw.label !== 0 && raw.label !== 1)) return null;
  const family = typeof raw.family === 'string' ? raw.family : 'unknown';
  const source = typeof raw.source === 'string' ? raw.source : 'unknown';
  return {
    text: raw.text,
    label: raw.label,
    // the indirect family's carriers (tool results, agent traces, documents) are documents
    group: family === 'indirect' ? 'document' : 'prompt',
    family,
    source: sourceKey(source) ?? source,
    lang: languageOf(source, raw.text),
    origin: '',
  };
}

/**
 * Every usable validation row of the detector. Toxicity's file holds prompts only, so its document
 * group borrows the benign indirect carriers of the injection file (none of them toxic), as
 * `npm run train:thresholds` does.
 * @throws Error when a file is missing or not JSON Lines
 */
export function validationRows(detector: ExtraDetector): InputRow[] {
  const [first, second] = validationFiles(detector);
  const rows = readJsonl<RawRow>(first!)
    .map(toRow)
    .filter((r): r is InputRow => r !== null);
  if (detector === 'toxicity')
    for (const r of readJsonl<RawRow>(second!).map(toRow))
      if (r && r.label === 0 && r.family === 'indirect') rows.push(r);
  return rows;
}

/** The stratum a row is sampled in: family (prompt injection) or source (toxicity), and label. */
const stratum = (r: InputRow): string => `${r.family === 'toxicity' ? r.source : r.family}/${r.label}`;

/**
 * About `n` rows, each stratum (family or source × label) in proportion and at least one row of each;
 * inside a stratum the rows whose text hashes lowest, so the same files give the same sample.
 */
export function stratifiedSample(rows: readonly InputRow[], n: number): InputRow[] {
  if (n >= rows.length) return [...rows];
  const strata = new Map<string, InputRow[]>();
  for (const r of rows) {
    const k = stratum(r);
    const list = strata.get(k);
    if (list) list.push(r);
    else strata.set(k, [r]);
  }
  const out: InputRow[] = [];
  for (const k of [...strata.keys()].sort()) {
    const list = strata.get(k)!;
    const take = Math.max(1, Math.round((n * list.length) / rows.length));
    const hashed = list.map((r) => ({ r, h: sha256Hex(`${r.source}\0${r.text}`) }));
    hashed.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
    out.push(...hashed.slice(0, take).map((x) => x.r));
  }
  return out;
}

/**
 * Each row's origin: the operator's events are `events`; a validation row counts under its source
 * (`public:<owner/repo>`), or `public:other` where its source has fewer than MIN_ORIGIN_ROWS benign rows
 * in the row's surface group.
 */
export function assignOrigins(rows: InputRow[]): void {
  const benign = new Map<string, number>();
  const key = (r: InputRow) => `${r.group}\0${r.source}`;
  for (const r of rows) if (r.label === 0 && r.family !== 'events') benign.set(key(r), (benign.get(key(r)) ?? 0) + 1);
  for (const r of rows)
    r.origin =
      r.family === 'events'
        ? 'events'
        : (benign.get(key(r)) ?? 0) >= MIN_ORIGIN_ROWS
          ? `public:${r.source}`
          : 'public:other';
}

/** A labeled event as the fit reads it (`store/labeled-events.ts` calibrationEvents: consented ones only). */
export interface EventRow {
  source: string;
  verdict: string | null;
  input_redacted: string | null;
  attack_class: string | null;
}

/**
 * A labeled event's label for a detector's fit, or null when it has none usable:
 * - `reviewed`, `feedback`: a person's verdict — `blocked`, `flagged` → 1; `allowed` → 0; `warned` or
 *   none → unused (neither side is sure);
 * - `production_sample`: `allowed` → 0 (the operator's benign traffic); any other verdict is the
 *   service's own decision, not a label → unused;
 * - `redteam`: every probe is an attack whatever the target answered (its verdict is that answer) → 1
 *   for prompt injection; unused for toxicity (the probes are injections, not abuse).
 */
export function eventLabel(detector: ExtraDetector, e: Pick<EventRow, 'source' | 'verdict'>): 0 | 1 | null {
  if (e.source === 'redteam') return detector === 'prompt_injection' ? 1 : null;
  if (e.source === 'production_sample') return e.verdict === 'allowed' ? 0 : null;
  if (e.verdict === 'blocked' || e.verdict === 'flagged') return 1;
  return e.verdict === 'allowed' ? 0 : null;
}

export interface EventUse {
  rows: InputRow[];
  /** consented events read */
  read: number;
  /** events with no input text or no usable label */
  unusable: number;
  /** consented events with input text and a usable label */
  usable: number;
  /** at least the minimum of usable events, so they joined the fit */
  used: boolean;
}

/**
 * An organization's (consented) events as rows of the fit: with input text and a usable label
 * (`eventLabel`); used only when at least `min` of them are usable. An `indirect_injection` attack class
 * is a document, the rest prompts.
 */
export function eventRows(detector: ExtraDetector, events: readonly EventRow[], min: number): EventUse {
  const rows: InputRow[] = [];
  let unusable = 0;
  for (const e of events) {
    const label = eventLabel(detector, e);
    if (label === null || !e.input_redacted) {
      unusable++;
      continue;
    }
    rows.push({
      text: e.input_redacted,
      label,
      group: e.attack_class === 'indirect_injection' ? 'document' : 'prompt',
      family: 'events',
      source: `events:${e.source}`,
      lang: languageOf(undefined, e.input_redacted),
      origin: 'events',
    });
  }
  const used = rows.length >= min;
  return {
    rows: used ? rows : [],
    read: events.length,
    unusable,
    usable: rows.length,
    used,
  };
}
