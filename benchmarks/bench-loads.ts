/** What each scenario of `npm run bench` sends: its connection counts, bodies, surface and tiers. */
import { documentTemplates, standardTemplates } from './fixtures.ts';
import type { BodyTemplate } from './body-source.ts';
import { mixTemplates } from './mix-fixtures.ts';
import type { Scenario } from './report-html.ts';

/** One scenario's load: the flags where given, else the scenario's defaults. */
export interface Load {
  connections: number[];
  chars: number;
  surface: string;
  tiers: string[];
  templates: (tier: string) => BodyTemplate[];
}

/** The command line's explicit choices (each absent: the scenario's default). */
export interface LoadFlags {
  connections?: number[];
  chars?: number;
  surface?: string;
  tiers?: string[];
}

export function loadFor(scenario: Scenario, flags: LoadFlags): Load {
  if (scenario === 'mix')
    return {
      connections: flags.connections ?? [50],
      chars: 0, // varies per request (mix-fixtures.ts)
      surface: 'mix',
      tiers: flags.tiers ?? ['auto'],
      templates: (tier) => mixTemplates(tier),
    };
  const document = scenario === 'document';
  const chars = flags.chars ?? (document ? 30_000 : 1_000);
  const surface = flags.surface ?? (document ? 'document' : 'user_message');
  return {
    connections: flags.connections ?? (document ? [1, 8] : [50]),
    chars,
    surface,
    tiers: flags.tiers ?? [document ? 'auto' : 'fast'],
    templates: (tier) => (document ? documentTemplates(chars, surface, tier) : standardTemplates(chars, surface, tier)),
  };
}
