/** Ports on 127.0.0.1 for the embedded cluster. */
import { readFile } from 'node:fs/promises';
import net from 'node:net';

/**
 * A free port for the cluster, outside the kernel's ephemeral range when it can: a port from that
 * range can be taken by any outgoing connection (a pool's, a fetch's) while the cluster is down, and
 * then the supervised restart, which must come back on the same port, could not bind it.
 */
export async function freePort(): Promise<number> {
  const low = await ephemeralLow();
  for (let i = 0; low !== null && low > 12_000 && i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await isPortFree(port)) return port;
  }
  return anyFreePort();
}

/** The first port of the kernel's ephemeral range (Linux), or null where it cannot be read. */
async function ephemeralLow(): Promise<number | null> {
  try {
    const low = Number.parseInt(
      (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/)[0] ?? '',
      10,
    );
    return Number.isInteger(low) ? low : null;
  } catch {
    return null;
  }
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether 127.0.0.1:`port` can be listened on now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
