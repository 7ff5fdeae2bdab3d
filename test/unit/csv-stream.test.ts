import { Writable } from 'node:stream';
import type { Response } from 'express';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { streamCsv } from '../../api/routes/audit-events/csv.ts';

/** A slow sink with a tiny buffer that fails the test if written to while it asked to drain. */
function slowSink(opts: { destroyAfter?: number } = {}) {
  const chunks: string[] = [];
  let writesWhileFull = 0;
  const sink = new Writable({
    highWaterMark: 64,
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      if (opts.destroyAfter !== undefined && chunks.length >= opts.destroyAfter) {
        done();
        sink.destroy();
        return;
      }
      setTimeout(done, 1);
    },
  });
  const write = sink.write.bind(sink);
  sink.write = ((chunk: string) => {
    if (sink.writableNeedDrain) writesWhileFull++;
    return write(chunk);
  }) as typeof sink.write;
  return { sink, chunks, writesWhileFull: () => writesWhileFull };
}

describe('streamCsv', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => [`id-${i}`, i % 2 ? '=x' : 'a,b', [String(i)]]);

  it('writes the header and every row, waiting for drain between chunks', async () => {
    const s = slowSink();
    const finished = new Promise((resolve) => s.sink.on('finish', resolve));
    await streamCsv(s.sink as unknown as Response, ['id', 'value', 'tags'], rows);
    await finished;
    expect(s.writesWhileFull()).toBe(0);
    expect(s.chunks.length).toBeGreaterThan(2);
    const parsed = parse(s.chunks.join('')) as string[][];
    expect(parsed[0]).toEqual(['id', 'value', 'tags']);
    expect(parsed).toHaveLength(2001);
    expect(parsed[2]).toEqual(['id-1', "'=x", '1']);
  });

  it('stops when the client goes away', async () => {
    const s = slowSink({ destroyAfter: 2 });
    await streamCsv(s.sink as unknown as Response, ['id', 'value', 'tags'], rows);
    expect(s.chunks.length).toBeLessThanOrEqual(3);
  });

  it('writes nothing (and does not hang) when the client left before the first write', async () => {
    const s = slowSink();
    s.sink.destroy();
    await streamCsv(s.sink as unknown as Response, ['id', 'value', 'tags'], rows);
    expect(s.chunks).toEqual([]);
  });
});
