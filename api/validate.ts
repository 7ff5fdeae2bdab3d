import type { z } from 'zod';
import { Errors, type ValidationIssue } from '../lib/errors.ts';

/** zod issues → the problem's `errors` list, one entry per issue with a dotted path. */
export function issuesOf(error: z.ZodError, root: string): ValidationIssue[] {
  return error.issues.map((i) => ({
    path: [root, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.message,
  }));
}

/**
 * Parses `value` with `schema`.
 * @throws ProblemError 400 request.validation_failed listing every issue.
 */
export function parseOr400<T>(schema: z.ZodType<T>, value: unknown, root: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw Errors.validationFailed(issuesOf(r.error, root));
  return r.data;
}
