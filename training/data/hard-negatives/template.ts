import type { Rng } from '../../prng.ts';

/** One sentence pattern: its category, and how to fill its slots from the PRNG. */
export interface Template {
  category: string;
  make: (r: Rng) => string;
}
