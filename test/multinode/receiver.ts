/**
 * A webhook receiver in the bed's client namespace: HTTPS with the bed's leaf certificate on the
 * client address (the nodes trust the bed's CA through WEBHOOK_CA_FILE and allow the address through
 * WEBHOOK_ALLOW_PRIVATE). Records every request with the node it came from (its source address).
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { BedDescription } from './bed.ts';

export interface Delivery {
  at: number;
  /** The sending node's address. */
  from: string;
  eventId: string;
  body: string;
}

export interface BedReceiver {
  url: string;
  received: Delivery[];
  close(): Promise<void>;
}

/** Starts the receiver; `status` decides each answer (default 200). */
export async function startBedReceiver(
  bed: BedDescription,
  status: (d: Delivery, earlier: readonly Delivery[]) => number = () => 200,
): Promise<BedReceiver> {
  const received: Delivery[] = [];
  const server = https.createServer(
    { key: readFileSync(bed.tls.keyFile), cert: readFileSync(bed.tls.certFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const d: Delivery = {
          at: Date.now(),
          from: req.socket.remoteAddress ?? '',
          eventId: String(req.headers['service-event-id'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const earlier = received.filter((r) => r.eventId === d.eventId);
        received.push(d);
        res.writeHead(status(d, earlier), { 'content-type': 'text/plain' });
        res.end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, bed.clientAddress, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${bed.clientAddress}:${port}/hook`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
