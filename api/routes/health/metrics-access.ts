/**
 * Who may scrape `/metrics` without METRICS_TOKEN (docs/decisions/0013-safe-network-defaults.md):
 * loopback clients and the addresses of METRICS_ALLOW, as the socket's peer says. A request carrying a
 * forwarding header came through a proxy, whose own address says nothing of the client's (a proxy on
 * the same host would make every client look local), so it never counts — whatever TRUST_PROXY says,
 * because the left-most X-Forwarded-For entry that `req.ip` would give is the client's to choose.
 */
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { AllowList } from '../../../lib/allow-list.ts';

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
const LOOPBACK_V6 = new net.BlockList();
LOOPBACK_V6.addAddress('::1', 'ipv6');

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** The socket peer as an IPv4 address when it is an IPv4-mapped IPv6 one (a dual-stack listener). */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** Whether a request from socket peer `peer` with these headers may read `/metrics` without a token. */
export function metricsAllowedByAddress(
  peer: string | undefined,
  headers: IncomingHttpHeaders,
  allow: AllowList,
): boolean {
  if (!peer || FORWARDING_HEADERS.some((h) => headers[h] !== undefined)) return false;
  const address = unmapped(peer);
  const family = net.isIP(address);
  if (family === 4 && LOOPBACK.check(address, 'ipv4')) return true;
  if (family === 6 && LOOPBACK_V6.check(address, 'ipv6')) return true;
  return allow.allowsAddress(address);
}
