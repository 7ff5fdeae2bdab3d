/** The severity scale: its order, the confidence each level reports, and moving along it. */
import type { PathSeverity } from './types.ts';

export const CONFIDENCE: Record<PathSeverity, number> = { critical: 0.95, high: 0.8, medium: 0.6, low: 0.4 };
export const LEVELS: readonly PathSeverity[] = ['low', 'medium', 'high', 'critical'];
export const shift = (s: PathSeverity, by: number): PathSeverity =>
  LEVELS[Math.min(3, Math.max(0, LEVELS.indexOf(s) + by))]!;
