/**
 * Validation of pi-suffix: held-out benign dataset families (prompt-like and document-like) and the
 * suffix-attack generator's sets (`training/data/suffix-attacks.ts`, a generator the model never saw).
 * Thresholds come from benign prompts only (held-out families + the generator's calibration seed);
 * recall and FPR are reported on the generator's test seed.
 */
import type { CharLmConfig, NgramTable } from '../../inference/char-lm.ts';
import { maxWindowSurprise } from '../../inference/char-lm.ts';
import { suffixValidationSet, type SuffixExample } from '../data/suffix-attacks.ts';
import { rocAuc } from '../metrics.ts';

export interface Scored {
  bits: number;
  label: number;
  kind: string;
}

/** Held-out families whose benign rows read like user prompts (the rest read like documents). */
export const PROMPT_LIKE_FAMILIES = new Set([
  'lm-sys/FastChat',
  'whylabs/langkit',
  'f/awesome-chatgpt-prompts',
  'CHATS-lab/persuasive_jailbreaker',
  'PromptDefender/pint-benchmark',
  'yizhongw/self-instruct:human_eval/user_oriented_instructions.jsonl',
]);

/** The score at which `fpr` of the benign scores are above. */
export function thresholdAtFpr(benign: number[], fpr: number): number {
  const s = [...benign].sort((a, b) => b - a);
  const i = Math.floor(fpr * s.length);
  return i >= s.length ? s[s.length - 1]! : s[i]! + 1e-6;
}

const rate = (xs: number[], t: number): number => (xs.length ? xs.filter((x) => x >= t).length / xs.length : 0);
const r4 = (x: number): number => Math.round(x * 10_000) / 10_000;

export interface SuffixReport {
  thresholds: { fpr_01: number; fpr_02: number; fpr_05: number; max_benign: number };
  metrics: Record<string, unknown>;
}

/** Scores everything, picks thresholds on benign prompts, reports per kind. */
export function evaluateSuffix(
  table: NgramTable,
  cfg: CharLmConfig,
  heldout: { text: string; family: string }[],
): SuffixReport {
  const score = (text: string): number => maxWindowSurprise(table, text, cfg).bits;
  const held = heldout.map((r) => ({ bits: score(r.text), promptLike: PROMPT_LIKE_FAMILIES.has(r.family) }));
  const gen = (set: SuffixExample[]): Scored[] =>
    set.map((e) => ({ bits: score(e.text), label: e.label, kind: e.kind }));
  const calib = gen(suffixValidationSet(1717));
  const test = gen(suffixValidationSet(2026));
  const isPrompt = (s: Scored): boolean => s.label === 0 && !s.kind.startsWith('doc:');
  const calibBenign = [
    ...held.filter((h) => h.promptLike).map((h) => h.bits),
    ...calib.filter(isPrompt).map((s) => s.bits),
  ];
  const t01 = thresholdAtFpr(calibBenign, 0.01);
  const t02 = thresholdAtFpr(calibBenign, 0.02);
  const t05 = thresholdAtFpr(calibBenign, 0.05);
  const maxBenign = Math.max(...calibBenign);

  const testBenignPrompts = test.filter(isPrompt).map((s) => s.bits);
  // recall at FPR x on the test seed's own benign prompts (threshold from them: the honest operating point)
  const tTest01 = thresholdAtFpr(testBenignPrompts, 0.01);
  const tTest05 = thresholdAtFpr(testBenignPrompts, 0.05);
  const byKind: Record<string, unknown> = {};
  const kinds = [...new Set(test.map((s) => s.kind))].sort();
  for (const kind of kinds) {
    const xs = test.filter((s) => s.kind === kind).map((s) => s.bits);
    byKind[kind] = {
      n: xs.length,
      rate_at_calibrated_fpr_01: r4(rate(xs, t01)),
      rate_at_calibrated_fpr_05: r4(rate(xs, t05)),
    };
  }
  const attacks = test.filter((s) => s.label === 1).map((s) => s.bits);
  const docs = test.filter((s) => s.kind.startsWith('doc:')).map((s) => s.bits);
  const heldDocs = held.filter((h) => !h.promptLike).map((h) => h.bits);
  const heldPrompts = held.filter((h) => h.promptLike).map((h) => h.bits);
  return {
    thresholds: { fpr_01: r4(t01), fpr_02: r4(t02), fpr_05: r4(t05), max_benign: r4(maxBenign) },
    metrics: {
      calibration: { benign_prompts: calibBenign.length, heldout_prompt_rows: heldPrompts.length },
      test_seed: {
        attacks: attacks.length,
        benign_prompts: testBenignPrompts.length,
        recall_at_calibrated_fpr_01: r4(rate(attacks, t01)),
        recall_at_calibrated_fpr_05: r4(rate(attacks, t05)),
        fpr_prompts_at_calibrated_fpr_01: r4(rate(testBenignPrompts, t01)),
        recall_at_test_fpr_01: r4(rate(attacks, tTest01)),
        recall_at_test_fpr_05: r4(rate(attacks, tTest05)),
        roc_auc_attacks_vs_benign_prompts: r4(
          rocAuc([...attacks, ...testBenignPrompts], [...attacks.map(() => 1), ...testBenignPrompts.map(() => 0)]) ?? 0,
        ),
        document_negatives_fpr_at_calibrated_fpr_01: r4(rate(docs, t01)),
        by_kind: byKind,
      },
      heldout_rows: {
        prompt_like: heldPrompts.length,
        prompt_like_fpr_at_fpr_01: r4(rate(heldPrompts, t01)),
        document_like: heldDocs.length,
        document_like_fpr_at_fpr_01: r4(rate(heldDocs, t01)),
        document_like_fpr_at_fpr_05: r4(rate(heldDocs, t05)),
      },
    },
  };
}
