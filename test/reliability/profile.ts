/**
 * The reliability suites run in two sizes: the short one inside `npm test` (and CI), the long one on
 * demand with `npm run test:reliability` (RELIABILITY=long). Figures from long runs go in
 * docs/reliability.md.
 */
export const LONG = process.env.RELIABILITY === 'long';

/** `short` cases in the default run, `long` with RELIABILITY=long. */
export function cases(short: number, long: number): number {
  return LONG ? long : short;
}

/** A test timeout that grows with the run size (ms). */
export function budgetMs(shortMs: number, longMs: number): number {
  return LONG ? longMs : shortMs;
}
