/**
 * The report of `npm run eval -- --suite validation` for one detector × tier: built from the scored rows
 * (`eval-suite.ts` figures) and rendered as compact markdown tables.
 */
import type { Tier } from '../engine/detector.ts';
import type { Thresholds } from '../inference/manifest.ts';
import {
  fprCuts,
  GROUP_FPRS,
  LEVELS,
  MIN_LANGUAGE_ROWS,
  RECALL_FPRS,
  sliceStats,
  slicesBy,
  sourceFragment,
  sourceKey,
  surfaceGroupStats,
  worstSlice,
  type FprCuts,
  type GroupStats,
  type SliceStats,
  type SuiteRow,
} from './eval-suite.ts';

export type SuiteDetector = 'prompt_injection' | 'toxicity';

/** What the run knows besides the rows. */
export interface SuiteMeta {
  detector: SuiteDetector;
  tier: Tier;
  /** The thresholds the scan results carried (most rows'), i.e. the manifest's for the model that scored. */
  thresholds: Thresholds;
  /** The detector's default thresholds in the registry (the catalog). */
  catalog_thresholds: Thresholds;
  /** Rows whose result carried other thresholds (a fallback model). */
  other_thresholds: number;
  /** The auto tier's cascade: scans decided without the deferred encoder (early) and with it (full). */
  cascade: { early: number; full: number } | null;
  seconds: number | null;
  limit: number | null;
}

export interface TeamSection {
  overall: SliceStats;
  slices: Record<string, SliceStats[]>;
}

export interface SuiteReport extends SuiteMeta {
  rows: Record<string, number>;
  /** Detector notes (fallbacks, unavailable models) and how many rows had each. */
  notes: Record<string, number>;
  /** Whole-file benign cuts at RECALL_FPRS per surface group: validation only, and with the team benign pool. */
  recall_fprs: number[];
  cuts: FprCuts;
  cuts_with_pool: FprCuts | null;
  overall: SliceStats;
  overall_with_pool: SliceStats | null;
  slice_by: 'family' | 'source';
  slices: SliceStats[];
  worst: SliceStats | null;
  languages: SliceStats[];
  small_languages: { key: string; n: number }[];
  group_fprs: number[];
  groups: GroupStats[];
  canonical_overrides: TeamSection | null;
  benign_pool: TeamSection | null;
  functional: TeamSection | null;
  encoder_share: number | null;
}

/** Builds the report from every scored row of one detector × tier (all sets). */
export function buildSuiteReport(rows: readonly SuiteRow[], meta: SuiteMeta): SuiteReport {
  const t = meta.thresholds;
  const validation = rows.filter((r) => r.set === 'validation');
  const pool = rows.filter((r) => r.set === 'benign-pool');
  const describe = (r: SuiteRow) => (r.set === 'validation' ? `validation/${r.family ?? '-'}` : r.set);
  const cuts = fprCuts(validation, RECALL_FPRS, describe);
  const cutsWithPool = pool.length ? fprCuts([...validation, ...pool], RECALL_FPRS, describe) : null;
  const sliceBy = meta.detector === 'prompt_injection' ? 'family' : 'source';
  const { slices } = slicesBy(validation, (r) => (sliceBy === 'family' ? r.family : sourceKey(r.source)), cuts, t);
  const languages = slicesBy(validation, (r) => r.lang, cuts, t, MIN_LANGUAGE_ROWS);
  const count = (key: (r: SuiteRow) => string | undefined): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const r of rows) {
      const k = key(r);
      if (k !== undefined) out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  const team = (set: string, by: Record<string, (r: SuiteRow) => string | undefined>): TeamSection | null => {
    const own = rows.filter((r) => r.set === set);
    if (own.length === 0) return null;
    return {
      overall: sliceStats(set, own, cuts, t),
      slices: Object.fromEntries(Object.entries(by).map(([name, key]) => [name, slicesBy(own, key, cuts, t).slices])),
    };
  };
  const cascadeTotal = meta.cascade ? meta.cascade.early + meta.cascade.full : 0;
  return {
    ...meta,
    rows: count((r) => r.set),
    notes: count((r) => r.note),
    recall_fprs: [...RECALL_FPRS],
    cuts,
    cuts_with_pool: cutsWithPool,
    overall: sliceStats('validation', validation, cuts, t),
    overall_with_pool: cutsWithPool
      ? sliceStats('validation + team benign pool', [...validation, ...pool], cutsWithPool, t)
      : null,
    slice_by: sliceBy,
    slices,
    worst: worstSlice(slices),
    languages: languages.slices,
    small_languages: languages.small,
    group_fprs: [...GROUP_FPRS],
    groups: surfaceGroupStats(validation, pool, t),
    canonical_overrides: team('canonical-overrides', { lang: (r) => r.lang, intent: (r) => r.intent }),
    benign_pool: team('benign-pool', { lang: (r) => r.lang, surface_group: (r) => r.surface_group }),
    functional: team('functional', { category: (r) => sourceFragment(r.source) }),
    encoder_share: meta.cascade && cascadeTotal ? meta.cascade.full / cascadeTotal : null,
  };
}

// ------------------------------------------------------------------------------------------------
// markdown

const f3 = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(3));
const f4 = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toFixed(4));
const pct = (x: number): string => `${+(x * 100).toFixed(1)} %`;
const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** `markOneClass`: say so where a slice has one class only (off for the team sets, one-class by design). */
function sliceTable(
  title: string,
  slices: readonly SliceStats[],
  fprs: readonly number[],
  markOneClass = true,
): string[] {
  const r = fprs.map((f) => `R@${pct(f)}`);
  return [
    `| ${title} | pos | neg | AUC | ${r.join(' | ')} | FPR@${pct(fprs[fprs.length - 1]!)} cut | ${LEVELS.map((l) => `${l} R / FPR`).join(' | ')} |`,
    `|---|--:|--:|--:|${fprs.map(() => '--:').join('|')}|--:|${LEVELS.map(() => '--:').join('|')}|`,
    ...slices.map(
      (s) =>
        `| ${cell(s.key)}${markOneClass && s.one_class ? ` *(${s.one_class})*` : ''} | ${s.positives} | ${s.negatives} | ${f3(s.roc_auc)} | ${s.recall_at_fpr.map(f3).join(' | ')} | ${f3(s.fpr_at_fpr[s.fpr_at_fpr.length - 1])} | ${LEVELS.map((l) => `${f3(s.levels[l].recall)} / ${f3(s.levels[l].fpr)}`).join(' | ')} |`,
    ),
  ];
}

function cutsLine(name: string, cuts: FprCuts, fprs: readonly number[]): string {
  const parts = Object.values(cuts).map(
    (c) =>
      `**${c.group}** ${c.thresholds.map(f4).join(' / ')} over ${c.benign} benign rows (${Object.entries(c.from)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')})`,
  );
  return `${name} (score thresholds at benign FPR ${fprs.map(pct).join(' / ')}; each row is judged at its surface group's): ${parts.join('; ') || 'no benign rows'}`;
}

/** Markdown for one detector × tier. */
export function renderSuiteReport(r: SuiteReport): string {
  const t = r.thresholds;
  const c = r.catalog_thresholds;
  const fprs = r.recall_fprs;
  const out: string[] = [
    `## ${r.detector} · ${r.tier}`,
    '',
    `Rows: ${Object.entries(r.rows)
      .map(([k, n]) => `${k} ${n}`)
      .join(
        ', ',
      )}${r.limit !== null ? ` (first ${r.limit} per file)` : ''}${r.seconds !== null ? `; ${r.seconds.toFixed(1)} s` : ''}.`,
    `Shipped thresholds (as the scans carried them) warn ${t.warn_above} · flag ${t.flag_above} · block ${t.block_above}` +
      (c.warn_above !== t.warn_above || c.flag_above !== t.flag_above || c.block_above !== t.block_above
        ? ` (catalog default: ${c.warn_above} · ${c.flag_above} · ${c.block_above})`
        : '') +
      (r.other_thresholds ? `; **${r.other_thresholds} rows carried other thresholds**` : '') +
      '.',
  ];
  if (Object.keys(r.notes).length)
    out.push(
      `Detector notes: ${Object.entries(r.notes)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}.`,
    );
  if (r.encoder_share !== null) out.push(`Cascade: ${pct(r.encoder_share)} of scans reached the encoder.`);
  out.push(cutsLine('Whole-file cuts', r.cuts, fprs));
  if (r.cuts_with_pool) out.push(cutsLine('With the team benign pool', r.cuts_with_pool, fprs));
  out.push('', ...sliceTable('overall', [r.overall, ...(r.overall_with_pool ? [r.overall_with_pool] : [])], fprs));
  out.push('', ...sliceTable(r.slice_by, r.slices, fprs));
  if (r.worst)
    out.push(
      '',
      `Worst ${r.slice_by}: **${r.worst.key}** — recall ${f3(r.worst.recall_at_fpr[fprs.indexOf(0.05)])} at the FPR 5 % cut, ${f3(r.worst.levels.warn.recall)} at warn.`,
    );
  out.push('', ...sliceTable(`language (≥ ${MIN_LANGUAGE_ROWS} rows)`, r.languages, fprs));
  if (r.small_languages.length)
    out.push('', `Under ${MIN_LANGUAGE_ROWS} rows: ${r.small_languages.map((l) => `${l.key} ${l.n}`).join(', ')}.`);
  out.push('', ...groupTable(r));
  for (const [title, section] of [
    ['Team canonical overrides (all attacks; prompt-group cuts)', r.canonical_overrides],
    ['Team benign pool (all benign)', r.benign_pool],
    ['Team functional validation set', r.functional],
  ] as const) {
    if (!section) continue;
    out.push('', `### ${title}`, '', ...sliceTable('set', [section.overall], fprs, false));
    for (const [name, slices] of Object.entries(section.slices)) out.push('', ...sliceTable(name, slices, fprs, false));
  }
  return `${out.join('\n')}\n`;
}

function groupTable(r: SuiteReport): string[] {
  const levels = (x: Record<string, number | null> | null) => (x ? LEVELS.map((l) => f3(x[l])).join(' / ') : '–');
  const ts = (x: (number | null)[] | null, rec: (number | null)[] | null) =>
    x ? x.map((v, i) => `${f4(v)} (R ${f3(rec?.[i])})`).join(' / ') : '–';
  return [
    `| surface group | benign | +pool | FPR warn / flag / block | with pool | t @ FPR ${r.group_fprs.map(pct).join(' / ')} (recall) | with pool |`,
    '|---|--:|--:|--:|--:|--:|--:|',
    ...r.groups.map(
      (g) =>
        `| ${g.group} | ${g.benign} | ${g.pool} | ${levels(g.fpr_at_levels)} | ${levels(g.fpr_at_levels_with_pool)} | ${ts(g.thresholds_for_fpr, g.recall_at_thresholds)} | ${ts(g.thresholds_for_fpr_with_pool, g.recall_at_thresholds_with_pool)} |`,
    ),
  ];
}
