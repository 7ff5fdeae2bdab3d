import type http from 'node:http';

/**
 * Keep-alive connections end cleanly during a drain. Without this, a client that had a response
 * with `Connection: keep-alive` writes its next request onto a socket the draining server is about
 * to close, and gets ECONNRESET. Once draining: every response not yet started (in flight now, or
 * arriving on an open connection) carries `Connection: close`, so Node closes its socket after it
 * and the client opens a new connection (to another process); idle sockets are closed at once and
 * as each goes idle (the caller's reaper). A request written onto an idle socket at the very moment
 * it is closed can still see a reset: HTTP/1.1 clients retry idempotent requests in that case.
 */
export class Drain {
  private readonly inFlight = new Set<http.ServerResponse>();
  private draining = false;

  /** Call before the app's own request listener is added, so this one runs first. */
  constructor(server: http.Server) {
    server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (this.draining) return void res.setHeader('Connection', 'close');
      this.inFlight.add(res);
      res.once('close', () => this.inFlight.delete(res));
    });
  }

  /** Starts the drain: responses from now on close their connection; idle connections are closed. */
  start(server: http.Server): void {
    this.draining = true;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    this.inFlight.clear();
    server.closeIdleConnections();
  }
}
