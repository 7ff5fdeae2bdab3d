import type { Response } from 'express';

/**
 * Aborts when the client closes its connection before the response has been written whole: work
 * done for it after that (a scan's model inference) is work for nobody.
 */
export function clientGone(res: Response): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}
