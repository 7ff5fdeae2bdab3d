import dns from 'node:dns';
import net from 'node:net';
import type { AllowList } from '../../lib/allow-list.ts';
import { classifyAddress, describeRange, neverAllowedRange } from './address-ranges.ts';

/*
 * SSRF protection for webhook URLs: at registration (`checkWebhookUrl`) and at delivery
 * (`safeLookup` + `assertConnectedAddressAllowed`, which catch DNS rebinding and IP literals).
 *
 * Host parsing is the WHATWG URL parser's: it turns every IPv4 spelling (decimal `2130706433`,
 * octal `0177.0.0.1`, hex `0x7f000001`, short `127.1`, full-width digits) into dotted IPv4 and
 * every IPv6 spelling into its canonical bracketed form, so the checks below see one form only.
 * Any port is allowed: a port does not change which network the address is on. Which ranges are
 * refused is services/webhooks/address-ranges.ts; the allow list that lifts the rules for an operator's
 * internal receivers, lib/allow-list.ts (WEBHOOK_ALLOW_PRIVATE). No list lifts them for cloud metadata
 * names and addresses or link-local addresses: those are checked before the list, at every step.
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

function subjectOf(ip: string, hostname?: string): string {
  return hostname && hostname !== ip ? `${hostname} resolves to ${ip}, which` : ip;
}

function addressRefusal(ip: string, hostname?: string): UrlRefusal | null {
  const hit = classifyAddress(ip);
  if (!hit) return null;
  return refuse(
    hit.metadata ? 'metadata' : 'private_address',
    `${subjectOf(ip, hostname)} is ${describeRange(hit.range)}`,
  );
}

/**
 * A metadata or link-local address: refused before the allow list is consulted (with the same reason as
 * without a list; the detail says the list cannot open it when there is one).
 */
function neverAllowedRefusal(ip: string, allow: AllowList, hostname?: string): UrlRefusal | null {
  if (!neverAllowedRange(ip)) return null;
  const refusal = addressRefusal(ip, hostname)!;
  if (allow.size === 0) return refusal;
  return { ...refusal, detail: `${refusal.detail}, refused whatever the allow list says` };
}

function metadataNameRefusal(name: string): UrlRefusal | null {
  return METADATA_HOSTS.has(name) ? refuse('metadata', `${name} is a cloud metadata host name`) : null;
}

function nameRefusal(name: string): UrlRefusal | null {
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
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
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
    const never = neverAllowedRefusal(host, allow);
    if (never) return never;
    if (allow.allowsAddress(host)) return { url, host, ip: host };
    return addressRefusal(host) ?? { url, host, ip: host };
  }
  const name = host.replace(/\.+$/, '');
  if (name.length === 0) return refuse('malformed', 'The URL has no host');
  const metadata = metadataNameRefusal(name);
  if (metadata) return metadata;
  if (allow.allowsHost(name)) return { url, host, ip: null };
  return nameRefusal(name) ?? { url, host, ip: null };
}

const defaultLookupAll: LookupAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Checks a webhook URL at registration: the syntax checks, then every address the host resolves
 * to. Refused if any address is refused, unless the host or that address is allow-listed — and always
 * when an address is a metadata or link-local one.
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
    const never = neverAllowedRefusal(address, allow, host);
    if (never) return never;
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

/** Why delivering to `address` is refused, or null; `hostAllowed`: the URL's host is allow-listed by name. */
function refusedAddress(
  address: string,
  allow: AllowList,
  hostname?: string,
  hostAllowed = false,
): WebhookAddressRefusedError | null {
  const never = neverAllowedRange(address);
  if (never) return new WebhookAddressRefusedError(address, never, hostname);
  if (hostAllowed || allow.allowsAddress(address)) return null;
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
        for (const { address } of addresses) {
          const refused = refusedAddress(address, allow, hostname, hostAllowed);
          if (refused) {
            callback(refused, '', undefined);
            return;
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
 * host allow-listed by name (as `safeLookup` lets through) is accepted here too — unless its peer is
 * a metadata or link-local address.
 * @throws WebhookAddressRefusedError when the address is refused and neither it nor `hostname` is allow-listed,
 *   or it is a metadata or link-local address.
 */
export function assertConnectedAddressAllowed(
  remoteAddress: string | undefined,
  allow: AllowList,
  hostname?: string,
): void {
  const hostAllowed = hostname !== undefined && allow.allowsHost(hostname);
  if (!remoteAddress) {
    if (hostAllowed) return;
    throw new WebhookAddressRefusedError('(unknown)', 'unverifiable');
  }
  const refused = refusedAddress(remoteAddress, allow, hostname, hostAllowed);
  if (refused) throw refused;
}
