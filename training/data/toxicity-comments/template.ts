/**
 * Discussion-comment toxicity data (issue 18): the comment styles of wiki talk pages, news and forum
 * threads, code review and product reviews — personal attacks, insults, threats and identity attacks
 * aimed at the other people in a discussion, and their civil twins (disagreement, criticism of the work,
 * frustration, moderation talk). A TRAIN spec (`train.ts`) and a VALIDATION spec (`validation.ts`) by
 * different authors share no template or slot value (test/unit/toxicity-functional.test.ts).
 *
 * Placeholders: `{slot}` for any key of `slots`. Label 1 = toxic, 0 = civil.
 */
import { pick, shuffleInPlace, mulberry32 } from '../../prng.ts';
import { distinctTexts, fillSlots } from '../toxicity-functional/template.ts';

export const TOXIC_COMMENT_KINDS = [
  'personal_attack',
  'insult_profanity',
  'threat_individual',
  'identity_attack',
  'harassment',
] as const;
export const CIVIL_COMMENT_KINDS = [
  'civil_disagreement',
  'criticism_of_work',
  'frustration_no_target',
  'moderation_talk',
  'friendly_banter',
] as const;
export type CommentKind = (typeof TOXIC_COMMENT_KINDS)[number] | (typeof CIVIL_COMMENT_KINDS)[number];

export interface CommentSpec {
  templates: Readonly<Record<CommentKind, readonly string[]>>;
  slots: Readonly<Record<string, readonly string[]>>;
}

export interface CommentRow {
  text: string;
  label: 0 | 1;
  kind: CommentKind;
}

/** `count` rows, toxic and civil kinds in equal halves, each kind an even share (fewer when templates run out). */
export function expandComments(spec: CommentSpec, count: number, seed: number): CommentRow[] {
  const rng = mulberry32(seed);
  const out: CommentRow[] = [];
  const seen = new Set<string>();
  const kinds: [CommentKind, 0 | 1][] = [
    ...TOXIC_COMMENT_KINDS.map((k): [CommentKind, 0 | 1] => [k, 1]),
    ...CIVIL_COMMENT_KINDS.map((k): [CommentKind, 0 | 1] => [k, 0]),
  ];
  const per = Math.round(count / kinds.length);
  for (const [kind, label] of kinds) {
    const make = (): string => fillSlots(pick(spec.templates[kind], rng), spec.slots, rng);
    for (const text of distinctTexts(per, make, seen)) out.push({ text, label, kind });
  }
  return shuffleInPlace(out, rng);
}
