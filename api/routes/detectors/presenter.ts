import type { z } from 'zod';
import type { Detector } from '../../../engine/detector.ts';
import { CONTENT_TYPES, type detectorSchema } from './schema.ts';

/** A detector of the catalog; `enabled`: whether scans run it when they name none. */
export function presentDetector(d: Detector, enabled: boolean): z.output<typeof detectorSchema> {
  return {
    name: d.name,
    version: d.version,
    model: d.model,
    kind: d.kind,
    category: d.category,
    enabled,
    frameworks: d.frameworks,
    surfaces_supported: [...d.surfaces],
    content_types_supported: [...CONTENT_TYPES],
    thresholds: {
      block_above: d.thresholds.block_above,
      flag_above: d.thresholds.flag_above,
      warn_above: d.thresholds.warn_above,
    },
    threshold_false_alarm_rates: d.falseAlarmRates
      ? {
          block_above: d.falseAlarmRates.block_above,
          flag_above: d.falseAlarmRates.flag_above,
          warn_above: d.falseAlarmRates.warn_above,
        }
      : null,
  };
}
