import type { Scan } from './api.ts';
import { segmentsOf, wholeTextLabels } from './finding-marks.ts';

/**
 * The scanned text with every finding's span in a `<mark>` named by its detectors and labels (in its
 * title, and its accessible description); where findings overlap, a deeper mark. A finding about the
 * whole text is a label above it instead of a mark over all of it.
 */
export function HighlightedText({ text, scan }: { text: string; scan: Scan }) {
  const whole = wholeTextLabels(text, scan);
  return (
    <>
      {whole.length > 0 && (
        <p className="whole-text-findings" data-testid="whole-text-findings">
          The whole text:{' '}
          {whole.map((label) => (
            <span key={label} className="tag">
              {label}
            </span>
          ))}
        </p>
      )}
      <pre className="scanned-text" aria-label="Scanned text with findings highlighted">
        {segmentsOf(text, scan).map((segment, i) =>
          segment.labels.length === 0 ? (
            <span key={i}>{segment.text}</span>
          ) : (
            <mark
              key={i}
              className={segment.labels.length > 1 ? 'overlap' : undefined}
              title={segment.labels.join(', ')}
              aria-description={segment.labels.join(', ')}
            >
              {segment.text}
            </mark>
          ),
        )}
      </pre>
    </>
  );
}
