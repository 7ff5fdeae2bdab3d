/**
 * Unique request bodies at almost no cost to the load generator. A text is written once with marker
 * slots (`{id}` in the fixtures, at least one in every ~128-token window the encoder reads) and
 * compiled into the parts of its JSON body around those slots; each request then joins the parts with
 * a 6-digit marker from one process-wide counter. Lengths stay exact (a marker is exactly as wide as
 * its slot), and no two requests of a run send the same text, so neither the encoder's window LRU nor
 * a result cache can turn the run into cache hits. `unique: false` (`--repeat-texts`) sends every
 * template with one fixed marker instead: the old fixed bodies, to measure cache hits.
 */

/** Characters of a marker (a counter modulo 10⁶, zero-padded: six digits never read as a phone number). */
export const MARKER_WIDTH = 6;
/** What a slot is while a text is built: MARKER_WIDTH private-use characters (never escaped by JSON). */
export const SLOT = '\uE000'.repeat(MARKER_WIDTH);
const SLOT_CHAR = '\uE000';

/** `{id}` in a fixture sentence becomes a slot. */
export const slotted = (s: string) => s.replaceAll('{id}', SLOT);

/** The marker for the n-th request: six digits (wraps after 10⁶; caches hold far fewer entries than that). */
export function markerOf(n: number): string {
  return String(n % 10 ** MARKER_WIDTH).padStart(MARKER_WIDTH, '0');
}

/**
 * `text` cut to exactly `chars` characters; a slot the cut splits is filled with dots (a partial
 * slot would otherwise survive as private-use characters).
 */
export function cut(text: string, chars: number): string {
  const out = text.slice(0, chars);
  let run = 0;
  while (run < out.length && out[out.length - 1 - run] === SLOT_CHAR) run++;
  const partial = run % MARKER_WIDTH;
  return partial === 0 ? out : out.slice(0, -partial) + '.'.repeat(partial);
}

/**
 * Appends `sentences` (which may hold slots) until `chars` is reached, adding `filler` (a short
 * phrase whose slot comes within its first 8 characters) before any sentence that would leave more
 * than `every` characters without a slot; the result is cut to exactly `chars`.
 */
export function weave(sentences: () => string, chars: number, every: number, filler: () => string): string {
  let out = '';
  let since = 0;
  // Room for a filler's slot before the cut: short texts get theirs early.
  const budget = Math.max(0, Math.min(every, chars - 2 * MARKER_WIDTH - 8));
  while (out.length < chars) {
    const s = sentences();
    const first = s.indexOf(SLOT);
    if ((first < 0 ? since + s.length : since + first) > budget) {
      out += filler();
      since = 0;
    }
    out += s;
    const last = s.lastIndexOf(SLOT);
    since = last < 0 ? since + s.length : s.length - last - MARKER_WIDTH;
  }
  return cut(out, chars);
}

/** A scan body with slots: the parts of its JSON around them (one part: a text without slots). */
export type BodyTemplate = readonly string[];

/** The JSON of a `POST /v1/scans` body for `text` (with slots), split at the slots. */
export function scanTemplate(text: string, surface: string, tier: string): BodyTemplate {
  return JSON.stringify({ kind: 'content', surface, content: { type: 'text', text }, options: { tier } }).split(SLOT);
}

/** The body of `template` with `marker` in every slot. */
export function fill(template: BodyTemplate, marker: string): string {
  return template.length === 1 ? template[0]! : template.join(marker);
}

/** One request body per call, e.g. an autocannon `setupRequest`'s source. */
export type BodySource = () => string;

/** Process-wide, so warm-up, measured run, echo and rounds never send the same marker twice. */
let counter = 0;

/**
 * The bodies of `templates` in turn: each with the next marker of the process-wide counter, or (not
 * `unique`) each with the fixed marker `000000`, so the same few bodies repeat.
 */
export function bodySource(templates: readonly BodyTemplate[], unique: boolean): BodySource {
  if (templates.length === 0) throw new Error('bodySource: no templates');
  let i = 0;
  if (!unique) {
    const fixed = templates.map((t) => fill(t, markerOf(0)));
    return () => fixed[i++ % fixed.length]!;
  }
  return () => fill(templates[i++ % templates.length]!, markerOf(counter++));
}
