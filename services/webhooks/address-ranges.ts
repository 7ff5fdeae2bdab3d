/**
 * Which network an IP address is on: the special-purpose IPv4 and IPv6 ranges (private, loopback,
 * link-local, cloud metadata, …) that webhook deliveries must not reach (services/webhooks/url-guard.ts),
 * and the ones no allow list opens (`neverAllowedRange`).
 */
import net from 'node:net';

interface SpecialRange {
  name: string;
  metadata: boolean;
  family: 4 | 6;
  list: net.BlockList;
}

const ARTICLE_AN = /^(?:[aeio]|un[sv]|IPv|IETF|ORCHID)/;

/** "a loopback address", "an IPv4-mapped IPv6 address": a range named in a sentence. */
export function describeRange(range: string): string {
  return `${ARTICLE_AN.test(range) ? 'an' : 'a'} ${range} address`;
}

// Ordered: the first match names the range, so single addresses come before the blocks holding them.
const SPECIAL: readonly [name: string, cidrs: readonly string[], metadata?: boolean][] = [
  [
    'cloud metadata',
    ['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '168.63.129.16/32', 'fd00:ec2::254/128'],
    true,
  ],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['broadcast', ['255.255.255.255/32']],
  ['private (RFC 1918)', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['CGNAT', ['100.64.0.0/10']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['IETF protocol assignment', ['192.0.0.0/24']],
  ['documentation', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20']],
  ['6to4 relay anycast', ['192.88.99.0/24']],
  ['benchmarking', ['198.18.0.0/15', '2001:2::/48']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['240.0.0.0/4']],
  ['IPv4-mapped IPv6', ['::ffff:0:0/96']],
  ['IPv4-compatible IPv6', ['::/96']],
  ['NAT64', ['64:ff9b::/96', '64:ff9b:1::/48']],
  ['discard-only', ['100::/64']],
  ['Teredo', ['2001::/32']],
  ['ORCHID', ['2001:10::/28', '2001:20::/28']],
  ['6to4', ['2002::/16']],
  ['unique-local', ['fc00::/7']],
  ['site-local', ['fec0::/10']],
];

function buildRanges(): SpecialRange[] {
  const out: SpecialRange[] = [];
  for (const [name, cidrs, metadata = false] of SPECIAL) {
    // One list per family: a BlockList holding an IPv6 rule such as ::ffff:0:0/96 also matches IPv4 checks.
    for (const family of [4, 6] as const) {
      const list = new net.BlockList();
      let any = false;
      for (const cidr of cidrs) {
        const [base, prefix] = cidr.split('/') as [string, string];
        if (net.isIP(base) !== family) continue;
        list.addSubnet(base, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
        any = true;
      }
      if (any) out.push({ name, metadata, family, list });
    }
  }
  return out;
}

const RANGES = buildRanges();

const GLOBAL_UNICAST_V6 = new net.BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** IPv6 blocks that embed an IPv4 address in their last 32 bits. */
const EMBEDS_V4 = new net.BlockList();
EMBEDS_V4.addSubnet('::', 96, 'ipv6');
EMBEDS_V4.addSubnet('::ffff:0:0', 96, 'ipv6');
EMBEDS_V4.addSubnet('64:ff9b::', 96, 'ipv6');

/** The IPv4 address in the last 32 bits of an IPv6 address (any textual form). */
function lastIpv4(ip6: string): string {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip6);
  if (dotted) return dotted[1]!;
  const groups = ip6.split(':');
  const lo = parseInt(groups[groups.length - 1] || '0', 16);
  const hi = parseInt(groups[groups.length - 2] || '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

function matchRange(ip: string, family: 4 | 6): SpecialRange | undefined {
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return RANGES.find((r) => r.family === family && r.list.check(ip, type));
}

/**
 * The special-purpose range holding `ip`, or null when it is globally routable. Accepts any textual
 * IPv4 (dotted decimal) or IPv6 form; anything else is reported as range 'invalid' (fail closed).
 */
export function classifyAddress(ip: string): { range: string; metadata: boolean } | null {
  const zone = ip.indexOf('%');
  const bare = zone >= 0 ? ip.slice(0, zone) : ip;
  const family = net.isIP(bare);
  if (family !== 4 && family !== 6) return { range: 'invalid', metadata: false };
  const hit = matchRange(bare, family);
  if (hit) {
    // ::ffff:169.254.169.254 is refused as mapped anyway; flag it as metadata all the same.
    const metadata =
      hit.metadata ||
      (family === 6 && EMBEDS_V4.check(bare, 'ipv6') && matchRange(lastIpv4(bare), 4)?.metadata === true);
    return { range: hit.name, metadata };
  }
  if (family === 6 && !GLOBAL_UNICAST_V6.check(bare, 'ipv6')) return { range: 'reserved', metadata: false };
  // A zone id only makes sense on a scoped address; one on a global address is refused too.
  if (zone >= 0) return { range: 'zone-scoped', metadata: false };
  return null;
}

/**
 * The range of `ip` when no allow list may open it — cloud metadata endpoints and all of link-local
 * (169.254.0.0/16, fe80::/10; where clouds put their metadata and credential services), also when
 * embedded in an IPv4-mapped, IPv4-compatible or NAT64 IPv6 address — else null.
 */
export function neverAllowedRange(ip: string): string | null {
  const hit = classifyAddress(ip);
  if (!hit) return null;
  if (hit.metadata) return 'cloud metadata';
  if (hit.range === 'link-local') return hit.range;
  const bare = ip.split('%')[0]!;
  if (net.isIP(bare) === 6 && EMBEDS_V4.check(bare, 'ipv6') && classifyAddress(lastIpv4(bare))?.range === 'link-local')
    return 'link-local';
  return null;
}
