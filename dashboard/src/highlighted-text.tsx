import type { Scan } from './api.ts';

/** A finding's item located in the text: `[start, end)` in UTF-16 code units, as the API counts them. */
interface Mark {
  start: number;
  end: number;
  label: string;
}

/** A run of the text, and the labels of the findings covering it (none: plain text). */
export interface Segment {
  text: string;
  labels: string[];
}

/** Every item of every finding, with its detector and label, its span kept within the text. */
function marksOf(scan: Scan, length: number): Mark[] {
  return scan.findings.flatMap((finding) =>
    finding.items.map((item) => ({
      start: Math.max(0, Math.min(item.span[0], length)),
      end: Math.max(0, Math.min(item.span[1], length)),
      label: `${finding.detector}: ${item.label}`,
    })),
  );
}

/**
 * `text` cut at every span's start and end, each run with the labels of the spans covering it, so
 * overlapping findings show as adjoining marks rather than being lost.
 */
export function segmentsOf(text: string, scan: Scan): Segment[] {
  const marks = marksOf(scan, text.length).filter((m) => m.end > m.start);
  const cuts = [...new Set([0, text.length, ...marks.flatMap((m) => [m.start, m.end])])].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [start, end] = [cuts[i]!, cuts[i + 1]!];
    const labels = marks.filter((m) => m.start <= start && m.end >= end).map((m) => m.label);
    segments.push({ text: text.slice(start, end), labels: [...new Set(labels)] });
  }
  return segments;
}

/**
 * The scanned text with every finding's span in a `<mark>` named by its detectors and labels (in its
 * title, and its accessible description); where findings overlap, a deeper mark.
 */
export function HighlightedText({ text, scan }: { text: string; scan: Scan }) {
  return (
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
  );
}
