/**
 * Sensitive path references: system account files, private keys, env and credential files, shell
 * history, server config, and traversal sequences (plain, JSON-escaped and URL-encoded). Rules are
 * literal-anchored regexes, each run only when its trigger substring occurs, so ordinary prose costs
 * a few substring searches. A match grows over the surrounding path characters so the item shows
 * the whole path; traversal in that path raises severity, a plain web URL lowers it.
 *
 * The rule tables, the matcher and its helpers live in sensitive-path/.
 */
import type { Detector, FindingItem } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { andThen, runSteps } from '../../lib/steps.ts';
import { sensitivePathSteps } from './sensitive-path/matcher.ts';

/** Detector: references to sensitive files and traversal sequences in any text surface. */
export const sensitivePathDetector: Detector = {
  name: 'sensitive_path',
  version: '1.0.0',
  model: 'rules',
  kind: 'entities',
  category: 'sensitive_path',
  surfaces: ALL_SURFACES,
  thresholds: { warn_above: 0.4, flag_above: 0.6, block_above: 0.85 },
  frameworks: frameworksFor('sensitive_path'),
  detect(input) {
    return andThen(runSteps(sensitivePathSteps(input), input.pace), (matches) => {
      const items: FindingItem[] = matches.map((m) => ({
        text: m.text,
        label: m.label,
        confidence: m.confidence,
        source: m.source,
        span: m.span,
      }));
      const score = items.reduce((max, i) => Math.max(max, i.confidence), 0);
      return { detector: 'sensitive_path', score, items };
    });
  },
};
