import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TLS_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'tls');
/** The test CA that signed the receiver's certificate: give it to the service as WEBHOOK_CA_FILE. */
export const TEST_CA_FILE = path.join(TLS_DIR, 'ca.pem');

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this long (timeouts). */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the receiver answers request n (0-based); default 200. May look things up first (a promise). */
  respond: (r: Received, n: number) => Reply | Promise<Reply>;
  /** Resolves once `n` requests arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A local HTTPS receiver with a certificate from the test CA, recording every request. */
export async function startReceiver(respond: Receiver['respond'] = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = https.createServer(
    { key: readFileSync(path.join(TLS_DIR, 'receiver.key')), cert: readFileSync(path.join(TLS_DIR, 'receiver.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = {
          at: Date.now(),
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const n = received.length;
        received.push(r);
        for (const w of waiters.filter((w) => received.length >= w.n)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        void Promise.resolve()
          .then(() => receiver.respond(r, n))
          .then((reply) => {
            const send = () => {
              if (res.destroyed) return;
              res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
              res.end(reply.body ?? '');
            };
            if (reply.delayMs) setTimeout(send, reply.delayMs);
            else send();
          })
          .catch(() => res.destroy());
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `https://127.0.0.1:${port}/hook`,
    port,
    received,
    respond,
    waitFor: (n, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= n) return resolve(received.slice(0, n));
        const timer = setTimeout(
          () => reject(new Error(`receiver: ${received.length} of ${n} requests after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received.slice(0, n));
          },
        });
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
