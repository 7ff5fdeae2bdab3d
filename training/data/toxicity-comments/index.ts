/**
 * Discussion-comment toxicity data (issue 18): `toxicityCommentsTrain` (TRAIN spec) for trainers,
 * `toxicityCommentsVal` (VALIDATION spec, another author) for calibration and `npm run eval:sets`.
 */
import { expandComments, type CommentRow } from './template.ts';
import { COMMENTS_TRAIN } from './train.ts';
import { COMMENTS_VAL } from './validation.ts';

export { CIVIL_COMMENT_KINDS, TOXIC_COMMENT_KINDS, type CommentKind, type CommentRow } from './template.ts';

export function toxicityCommentsTrain(count = 3000, seed = 18_404): CommentRow[] {
  return expandComments(COMMENTS_TRAIN, count, seed);
}

export function toxicityCommentsVal(count = 1200, seed = 18_505): CommentRow[] {
  return expandComments(COMMENTS_VAL, count, seed);
}
