import { z } from 'zod';
import type { DetectorCategory } from '../../../engine/detector.ts';
import { SURFACES } from '../../../engine/detector.ts';
import { FRAMEWORKS } from '../../../engine/frameworks.ts';
import { pageOf, resource } from '../../resources.ts';

/** The detector categories: the keys of the framework table, which names every one. */
const CATEGORIES = Object.keys(FRAMEWORKS) as [DetectorCategory, ...DetectorCategory[]];

/** What kinds of content a detector reads: text, and a toolset's rendering. */
export const CONTENT_TYPES = ['text', 'toolset'] as const;

const score = z.number().min(0).max(1);

/** One detector of the catalog `GET /v1/detectors` (`presentDetector`). */
export const detectorSchema = resource(
  'Detector',
  z.object({
    name: z.string().describe('What a scan names in `detectors` and what its findings carry in `detector`.'),
    version: z.string(),
    model: z.string().describe('The model as `<id>@<version>`, or `rules` for a rule or pattern detector.'),
    kind: z.enum(['score', 'entities']).describe('`score`: one probability per content; `entities`: labelled spans.'),
    category: z.enum(CATEGORIES),
    enabled: z
      .boolean()
      .describe('Whether scans run it by default; a disabled one (its model not loaded) runs only when named.'),
    frameworks: z
      .object({
        owasp_agentic: z.array(z.string()),
        owasp_llm: z.array(z.string()),
        mitre_atlas: z.array(z.string()),
      })
      .describe('The framework entries (OWASP Agentic, OWASP LLM Top 10, MITRE ATLAS) the detector maps to.'),
    surfaces_supported: z.array(z.enum(SURFACES)),
    content_types_supported: z.array(z.enum(CONTENT_TYPES)),
    thresholds: z
      .object({ block_above: score, flag_above: score, warn_above: score })
      .describe('The default score levels above which a scan without a policy blocks, flags or warns.'),
    threshold_false_alarm_rates: z
      .object({ block_above: score, flag_above: score, warn_above: score })
      .nullable()
      .describe(
        'The share of benign content expected above each default threshold, the same on prompt surfaces and on document, tool and MCP surfaces and in every tier (the score is calibrated per surface group on a benign pool); null where a detector is not calibrated (rules, or a model without calibration).',
      ),
  }),
);

/** A page of the detector catalog, in registry order. */
export const detectorPageSchema = pageOf('DetectorPage', detectorSchema);
