/**
 * Server-sent events (the WHATWG `text/event-stream` format) read from a fetch `Response` body, and
 * the events of a streamed scan (`POST /v1/scans` with `Accept: text/event-stream`, framed by
 * api/routes/scans/sse.ts): `detector` per detector as it completes, then `decision` with the whole
 * scan — or `error` with a problem document, which the iterator throws as a `ContentFirewallError`.
 */
import { ContentFirewallError, isProblem } from './errors.ts';

/** One dispatched event: its `event` name (default `message`), joined `data` lines, last `id`. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/** Parses `text/event-stream` text fed in chunks of any size. */
export class EventStreamParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private lastId: string | undefined;
  private first = true;

  /** The events completed by `chunk`. */
  feed(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    if (this.first && this.buffer.length > 0) {
      this.first = false;
      if (this.buffer.startsWith('\uFEFF')) this.buffer = this.buffer.slice(1);
    }
    const out: ServerSentEvent[] = [];
    // A line ends at CRLF, LF or CR; a CR at the very end may be the first half of a CRLF.
    for (let m = /\r\n|\n|\r(?!$)/.exec(this.buffer); m; m = /\r\n|\n|\r(?!$)/.exec(this.buffer)) {
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const event = this.line(line);
      if (event) out.push(event);
    }
    return out;
  }

  /** The events completed by the last `chunk` of the stream: a CR at its very end ends a line. */
  end(chunk = ''): ServerSentEvent[] {
    const out = this.feed(chunk);
    if (!this.buffer.endsWith('\r')) return out;
    const last = this.buffer.slice(0, -1);
    this.buffer = '';
    const event = this.line(last);
    return event ? [...out, event] : out;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const event = this.data.length
      ? { event: this.event || 'message', data: this.data.join('\n'), id: this.lastId }
      : undefined;
    this.event = '';
    this.data = [];
    return event;
  }
}

/** The events of `response`'s body, in order, until the server ends the stream. */
export async function* readEvents(response: Response): AsyncGenerator<ServerSentEvent> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventStreamParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
    // An event not followed by a blank line when the stream ends is incomplete: dropped, as browsers do.
    yield* parser.end(decoder.decode());
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** An event of a streamed scan, `Scan` being the scan resource's type and `DetectorEvent` a detector's result. */
export type ScanStreamEvent<Scan, DetectorEvent> =
  | { event: 'detector'; id: string | undefined; data: DetectorEvent }
  | { event: 'decision'; id: string | undefined; data: Scan };

/**
 * The typed events of a streamed scan's `response`. A JSON answer instead of a stream (a retry with a
 * used Idempotency-Key replays the stored scan) yields its one `decision`. Events of other names are
 * skipped (new ones may be added).
 * @throws ContentFirewallError for an `event: error` (the scan failed after the stream began), or a stream that ends without a decision.
 */
export async function* scanEvents<Scan, DetectorEvent>(
  response: Response,
): AsyncGenerator<ScanStreamEvent<Scan, DetectorEvent>> {
  if (!/text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
    yield { event: 'decision', id: undefined, data: (await response.json()) as Scan };
    return;
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  for await (const e of readEvents(response)) {
    if (e.event === 'detector' || e.event === 'decision') {
      yield { event: e.event, id: e.id, data: JSON.parse(e.data) as Scan & DetectorEvent };
      if (e.event === 'decision') return;
    } else if (e.event === 'error') {
      const problem: unknown = JSON.parse(e.data);
      const status = isProblem(problem) ? problem.status : 500;
      throw new ContentFirewallError({ status, problem: isProblem(problem) ? problem : undefined, requestId });
    }
  }
  throw new ContentFirewallError({ status: 502, statusText: 'The event stream ended before the decision', requestId });
}
