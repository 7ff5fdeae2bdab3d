/**
 * Where a scan's findings lie in its text, for highlighting (highlighted-text.tsx): pure functions
 * over the scan's findings, kept apart from the page so unit tests read them without a browser.
 */

/** What these functions read of a scan (its findings' items), so they need nothing of the API client. */
export interface ScanFindings {
  findings: readonly {
    detector: string;
    items: readonly { label: string; span: readonly [number, number]; source: string }[];
  }[];
}

/** A finding's item located in the text: `[start, end)` in UTF-16 code units, as the API counts them. */
interface Mark {
  start: number;
  end: number;
  label: string;
  source: string;
}

/** A run of the text, and the labels of the findings covering it (none: plain text). */
export interface Segment {
  text: string;
  labels: string[];
}

/** Sources that locate what they found (a pattern's match, a recognised entity): their span is always a place. */
const LOCATING_SOURCES = new Set(['regex', 'ner']);

/** Every item of every finding, with its detector and label, its span kept within the text. */
function marksOf(scan: ScanFindings, length: number): Mark[] {
  return scan.findings.flatMap((finding) =>
    finding.items.map((item) => ({
      start: Math.max(0, Math.min(item.span[0], length)),
      end: Math.max(0, Math.min(item.span[1], length)),
      label: `${finding.detector}: ${item.label}`,
      source: item.source,
    })),
  );
}

/**
 * Whether `mark` is about the whole text rather than a place in it: a classifier (toxicity, prompt
 * injection: a model or a rule scoring a window) reports the window it scored, which for a short text
 * is all of it (surrounding blanks aside); highlighting everything would pretend to say where.
 */
const isWholeText = (mark: Mark, text: string): boolean =>
  !LOCATING_SOURCES.has(mark.source) &&
  text.trim() !== '' &&
  text.slice(0, mark.start).trim() === '' &&
  text.slice(mark.end).trim() === '';

/** The labels of the findings about the whole text rather than a part of it, each once. */
export function wholeTextLabels(text: string, scan: ScanFindings): string[] {
  return [
    ...new Set(
      marksOf(scan, text.length)
        .filter((m) => isWholeText(m, text))
        .map((m) => m.label),
    ),
  ];
}

/**
 * `text` cut at every span's start and end, each run with the labels of the spans covering it, so
 * overlapping findings show as adjoining marks rather than being lost. Findings about the whole text
 * are left out (wholeTextLabels names them).
 */
export function segmentsOf(text: string, scan: ScanFindings): Segment[] {
  const marks = marksOf(scan, text.length).filter((m) => m.end > m.start && !isWholeText(m, text));
  const cuts = [...new Set([0, text.length, ...marks.flatMap((m) => [m.start, m.end])])].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [start, end] = [cuts[i]!, cuts[i + 1]!];
    const labels = marks.filter((m) => m.start <= start && m.end >= end).map((m) => m.label);
    segments.push({ text: text.slice(start, end), labels: [...new Set(labels)] });
  }
  return segments;
}
