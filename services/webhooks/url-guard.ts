import dns from 'node:dns';
import net from 'node:net';

/*
 * SSRF protection for webhook URLs: at registration (`checkWebhookUrl`) and at delivery
 * (`safeLookup` + `assertConnectedAddressAllowed`, which catch DNS rebinding and IP literals).
 *
 * Host parsing is the WHATWG URL parser's: it turns every IPv4 spelling (decimal `2130706433`,
 * octal `0177.0.0.1`, hex `0x7f000001`, short `127.1`, full-width digits) into dotted IPv4 and
 * every IPv6 spelling into its canonical bracketed form, so the checks below see one form only.
 * Any port is allowed: a port does not change which network the address is on.
 */

export type UrlRefusalReason =
  | 'not_https'
  | 'malformed'
  | 'credentials'
  | 'too_long'
  | 'private_address'
  | 'metadata'
  | 'forbidden_host'
  | 'unresolvable';

/** Why a webhook URL was refused; `detail` is a sentence naming the host or address and the range. */
export type UrlRefusal = { reason: UrlRefusalReason; detail: string };

/** Resolves every address of a host name (the shape of `dns.promises.lookup(host, { all: true })`). */
export type LookupAll = (host: string) => Promise<{ address: string; family: number }[]>;

/** The resolver `safeLookup` wraps (the shape of `dns.promises.lookup` with `all: true`). */
export type LookupAllWithOptions = (hostname: string, options: dns.LookupAllOptions) => Promise<dns.LookupAddress[]>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const WEBHOOK_ADDRESS_REFUSED = 'WEBHOOK_ADDRESS_REFUSED';

/** A delivery's resolved or connected address is not globally routable (or is a metadata endpoint). */
export class WebhookAddressRefusedError extends Error {
  readonly code = WEBHOOK_ADDRESS_REFUSED;

  constructor(
    readonly address: string,
    readonly range: string,
    readonly hostname?: string,
  ) {
    super(
      `${hostname && hostname !== address ? `${hostname} resolves to ` : ''}${address}, ${describeRange(range)}: refused`,
    );
    this.name = 'WebhookAddressRefusedError';
  }
}

// ---------------------------------------------------------------------------------------------
// Address classification

interface SpecialRange {
  name: string;
  metadata: boolean;
  family: 4 | 6;
  list: net.BlockList;
}

const ARTICLE_AN = /^(?:[aeio]|un[sv]|IPv|IETF|ORCHID)/;

function describeRange(range: string): string {
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

// ---------------------------------------------------------------------------------------------
// Allow list (test-only escape hatch; empty by default)

const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.replace(/\.+$/, '');
}

/** Host names and addresses/CIDRs that webhook URLs may use despite the rules (tests deliver to a local receiver). */
export class AllowList {
  static readonly empty = new AllowList(new Set(), new net.BlockList(), new net.BlockList(), 0);

  private constructor(
    private readonly hosts: ReadonlySet<string>,
    private readonly v4: net.BlockList,
    private readonly v6: net.BlockList,
    readonly size: number,
  ) {}

  /**
   * Parses a comma- or space-separated list of host names, IP addresses and CIDRs, e.g.
   * `127.0.0.1, localhost, 10.0.0.0/8, ::1`.
   * @throws Error naming the first entry that is none of these.
   */
  static parse(config: string | undefined): AllowList {
    const entries = (config ?? '').split(/[\s,]+/).filter((e) => e.length > 0);
    if (entries.length === 0) return AllowList.empty;
    const hosts = new Set<string>();
    const v4 = new net.BlockList();
    const v6 = new net.BlockList();
    for (const entry of entries) {
      if (entry.includes('%'))
        throw new Error(`Webhook URL allow list: "${entry}" has a zone id; list the address without it`);
      const slash = entry.indexOf('/');
      const base = normalizeHost(slash >= 0 ? entry.slice(0, slash) : entry);
      const family = net.isIP(base);
      if (slash >= 0) {
        const prefixText = entry.slice(slash + 1);
        const prefix = Number(prefixText);
        const max = family === 4 ? 32 : 128;
        if (family === 0 || !/^\d{1,3}$/.test(prefixText) || prefix > max) {
          throw new Error(`Webhook URL allow list: "${entry}" is not a valid CIDR (address/prefix)`);
        }
        (family === 4 ? v4 : v6).addSubnet(base, prefix, family === 4 ? 'ipv4' : 'ipv6');
      } else if (family === 4) {
        v4.addAddress(base, 'ipv4');
      } else if (family === 6) {
        v6.addAddress(base, 'ipv6');
      } else if (HOST_NAME.test(base) && !/^[\d.]+$/.test(base)) {
        hosts.add(base);
      } else {
        throw new Error(`Webhook URL allow list: "${entry}" is not a host name, IP address or CIDR`);
      }
    }
    return new AllowList(hosts, v4, v6, entries.length);
  }

  /** Whether a URL host (name or IP, brackets and trailing dot allowed) is allow-listed. */
  allowsHost(hostname: string): boolean {
    if (this.size === 0) return false;
    const host = normalizeHost(hostname);
    return net.isIP(host) ? this.allowsAddress(host) : this.hosts.has(host);
  }

  /** Whether an IP address is allow-listed (exactly or by CIDR). */
  allowsAddress(ip: string): boolean {
    if (this.size === 0) return false;
    const family = net.isIP(ip);
    if (family === 4) return this.v4.check(ip, 'ipv4');
    if (family === 6) return this.v6.check(ip, 'ipv6');
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// URL checks

const METADATA_HOSTS = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
]);
const FORBIDDEN_SUFFIXES = ['.internal', '.local', '.localhost', '.localdomain', '.home.arpa'];
const FORBIDDEN_NAMES = new Set(['localhost', 'localdomain']);

function refuse(reason: UrlRefusalReason, detail: string): UrlRefusal {
  return { reason, detail };
}

function addressRefusal(ip: string, hostname?: string): UrlRefusal | null {
  const hit = classifyAddress(ip);
  if (!hit) return null;
  const subject = hostname && hostname !== ip ? `${hostname} resolves to ${ip}, which` : ip;
  return refuse(hit.metadata ? 'metadata' : 'private_address', `${subject} is ${describeRange(hit.range)}`);
}

function nameRefusal(name: string): UrlRefusal | null {
  if (METADATA_HOSTS.has(name)) return refuse('metadata', `${name} is a cloud metadata host name`);
  if (FORBIDDEN_NAMES.has(name)) return refuse('forbidden_host', `${name} is a local host name`);
  const suffix = FORBIDDEN_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return refuse('forbidden_host', `${name} is in ${suffix}, a name space that is not publicly resolvable`);
  // A single label is completed by the resolver's search domains, i.e. resolves to an internal host.
  if (!name.includes('.')) return refuse('forbidden_host', `${name} is not a fully qualified domain name`);
  return null;
}

export function isUrlRefusal(value: unknown): value is UrlRefusal {
  return typeof value === 'object' && value !== null && 'reason' in value && 'detail' in value && !('url' in value);
}

/**
 * Checks a webhook URL without DNS: scheme, length, credentials, IP literals and forbidden names.
 * `host` is the URL's host without brackets; `ip` is set when the host is an IP literal.
 */
export function checkWebhookUrlSyntax(
  raw: string,
  allow: AllowList,
): { url: URL; host: string; ip: string | null } | UrlRefusal {
  if (typeof raw !== 'string' || raw.length === 0) return refuse('malformed', 'The URL is empty');
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    return refuse('too_long', `The URL is ${raw.length} characters long; the limit is ${MAX_WEBHOOK_URL_LENGTH}`);
  // The URL parser silently drops tabs, newlines and surrounding spaces; what is stored must be what was sent.
  if (/[\u0000-\u0020\u007f]/.test(raw))
    return refuse('malformed', 'The URL contains whitespace or control characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('malformed', 'The URL cannot be parsed (an IPv6 zone id, a bad port or an invalid host)');
  }
  if (url.protocol !== 'https:')
    return refuse('not_https', `The scheme is ${url.protocol.replace(/:$/, '')}; only https is allowed`);
  if (url.username !== '' || url.password !== '')
    return refuse('credentials', 'The URL contains a user name or password; credentials would be stored in clear');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host.length === 0) return refuse('malformed', 'The URL has no host');

  if (net.isIP(host)) {
    if (allow.allowsAddress(host)) return { url, host, ip: host };
    return addressRefusal(host) ?? { url, host, ip: host };
  }
  const name = host.replace(/\.+$/, '');
  if (name.length === 0) return refuse('malformed', 'The URL has no host');
  if (allow.allowsHost(name)) return { url, host, ip: null };
  return nameRefusal(name) ?? { url, host, ip: null };
}

const defaultLookupAll: LookupAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Checks a webhook URL at registration: the syntax checks, then every address the host resolves
 * to. Refused if any address is refused, unless the host or that address is allow-listed.
 */
export async function checkWebhookUrl(
  raw: string,
  allow: AllowList,
  lookup: LookupAll = defaultLookupAll,
): Promise<{ url: URL; addresses: string[] } | UrlRefusal> {
  const syntax = checkWebhookUrlSyntax(raw, allow);
  if (isUrlRefusal(syntax)) return syntax;
  const { url, host, ip } = syntax;
  if (ip) return { url, addresses: [ip] };

  let resolved: { address: string; family: number }[];
  try {
    resolved = await lookup(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    return refuse('unresolvable', `${host} does not resolve${code ? ` (${code})` : ''}`);
  }
  if (resolved.length === 0) return refuse('unresolvable', `${host} resolves to no address`);
  const hostAllowed = allow.allowsHost(host);
  const addresses: string[] = [];
  for (const { address } of resolved) {
    if (!net.isIP(address))
      return refuse('unresolvable', `${host} resolves to ${JSON.stringify(address)}, which is not an IP address`);
    if (!hostAllowed && !allow.allowsAddress(address)) {
      const refusal = addressRefusal(address, host);
      if (refusal) return refusal;
    }
    addresses.push(address);
  }
  return { url, addresses };
}

// ---------------------------------------------------------------------------------------------
// Delivery-time checks

function refusedAddress(address: string, allow: AllowList, hostname?: string): WebhookAddressRefusedError | null {
  if (allow.allowsAddress(address)) return null;
  const hit = classifyAddress(address);
  return hit ? new WebhookAddressRefusedError(address, hit.range, hostname) : null;
}

const defaultLookupWithOptions: LookupAllWithOptions = (hostname, options) => dns.promises.lookup(hostname, options);

/**
 * A `lookup` for `https.request` / `net.connect` that resolves the host and refuses (error `code`
 * 'WEBHOOK_ADDRESS_REFUSED') when any address is refused, so the address connected to is the one
 * checked (DNS rebinding). Honours `options.all`, which node 20 sets when `autoSelectFamily` is on.
 */
export function safeLookup(
  allow: AllowList,
  lookupImpl: LookupAllWithOptions = defaultLookupWithOptions,
): net.LookupFunction {
  return (hostname, options, callback) => {
    const hostAllowed = allow.allowsHost(hostname);
    const opts: dns.LookupOptions = typeof options === 'object' && options !== null ? options : {};
    lookupImpl(hostname, { ...opts, all: true }).then(
      (addresses) => {
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
            hostname,
          });
          callback(err, '', undefined);
          return;
        }
        if (!hostAllowed) {
          for (const { address } of addresses) {
            const refused = refusedAddress(address, allow, hostname);
            if (refused) {
              callback(refused, '', undefined);
              return;
            }
          }
        }
        if (opts.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', undefined),
    );
  };
}

/**
 * Refuses the socket's actual peer (call on the socket's 'connect' event): covers IP-literal URLs,
 * for which node skips `lookup`. An unknown address is refused. Pass the URL's `hostname` so a
 * host allow-listed by name (as `safeLookup` lets through) is accepted here too.
 * @throws WebhookAddressRefusedError when the address is refused and neither it nor `hostname` is allow-listed.
 */
export function assertConnectedAddressAllowed(
  remoteAddress: string | undefined,
  allow: AllowList,
  hostname?: string,
): void {
  if (hostname !== undefined && allow.allowsHost(hostname)) return;
  if (!remoteAddress) throw new WebhookAddressRefusedError('(unknown)', 'unverifiable');
  const refused = refusedAddress(remoteAddress, allow, hostname);
  if (refused) throw refused;
}
