/**
 * Server-sent events for `POST /v1/scans` with `Accept: text/event-stream` (framing in docs/api.md):
 * `event: detector` per detector as it completes, then `event: decision` carrying the whole scan
 * (sent only after the row committed), or `event: error` with a problem document. Each event has
 * an increasing `id`.
 */
import type { Response } from 'express';
import type { z } from 'zod';
import type { Scan, ScanEventDetector } from './responses.ts';

/** Each event's `data`, as the OpenAPI document states it (api/routes/scans/responses.ts). */
export interface ScanEvents {
  detector: z.output<typeof ScanEventDetector>;
  decision: z.output<typeof Scan>;
  /** A problem document (api/middleware/problem.ts `problemBody`). */
  error: Record<string, unknown>;
}

export class EventStream {
  private seq = 0;
  private open = true;

  constructor(private readonly res: Response) {
    res.on('close', () => (this.open = false));
  }

  /** Sends the headers (status 200: EventSource clients accept nothing else). */
  start(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
  }

  /** Whether the client is still there; work goes on either way (see the route). */
  get connected(): boolean {
    return this.open;
  }

  send<E extends keyof ScanEvents>(event: E, data: ScanEvents[E]): void {
    if (!this.open) return;
    // JSON.stringify never emits a raw newline, so one `data:` line always holds the payload.
    this.res.write(`id: ${++this.seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.open) this.res.end();
  }
}
