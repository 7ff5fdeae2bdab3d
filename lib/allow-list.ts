/**
 * The webhook URL allow list (WEBHOOK_ALLOW_PRIVATE, and its older test-only spelling
 * WEBHOOK_UNSAFE_ALLOW_HOSTS): host names, host suffixes and addresses/CIDRs that webhook URLs may use
 * despite the private-address rules (services/webhooks/url-guard.ts). Empty by default. The guard, not
 * this list, keeps cloud metadata and link-local addresses refused whatever the list says. Pure:
 * config.ts parses it at start-up to refuse a bad list before anything runs. METRICS_ALLOW reuses it
 * for addresses only.
 */
import net from 'node:net';

const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.replace(/\.+$/, '');
}

/** What a list may hold: host names and suffixes too, or addresses and CIDRs only. */
export interface AllowListOptions {
  hosts?: boolean;
}

/** Host names, host suffixes and addresses/CIDRs that webhook URLs may use despite the private-address rules. */
export class AllowList {
  static readonly empty = new AllowList(new Set(), [], new net.BlockList(), new net.BlockList(), 0);

  private constructor(
    private readonly hosts: ReadonlySet<string>,
    /** Each with its leading dot: `.corp.example` matches `siem.corp.example`, not `corp.example`. */
    private readonly suffixes: readonly string[],
    private readonly v4: net.BlockList,
    private readonly v6: net.BlockList,
    readonly size: number,
  ) {}

  /**
   * Parses a comma- or space-separated list of host names, host suffixes (a leading dot:
   * `.corp.example`), IP addresses and CIDRs, e.g. `10.20.0.0/16, .corp.example, siem.internal, ::1`.
   * With `{ hosts: false }` only addresses and CIDRs are accepted.
   * @throws Error naming the first entry that is none of these.
   */
  static parse(config: string | undefined, options: AllowListOptions = {}): AllowList {
    const entries = (config ?? '').split(/[\s,]+/).filter((e) => e.length > 0);
    if (entries.length === 0) return AllowList.empty;
    const hostsAllowed = options.hosts ?? true;
    const hosts = new Set<string>();
    const suffixes: string[] = [];
    const v4 = new net.BlockList();
    const v6 = new net.BlockList();
    for (const entry of entries) {
      if (entry.includes('%')) throw new Error(`"${entry}" has a zone id; list the address without it`);
      const slash = entry.indexOf('/');
      const base = normalizeHost(slash >= 0 ? entry.slice(0, slash) : entry);
      const family = net.isIP(base);
      const isName = (name: string) => HOST_NAME.test(name) && !/^[\d.]+$/.test(name);
      if (slash >= 0) {
        const prefixText = entry.slice(slash + 1);
        const prefix = Number(prefixText);
        const max = family === 4 ? 32 : 128;
        if (family === 0 || !/^\d{1,3}$/.test(prefixText) || prefix > max) {
          throw new Error(`"${entry}" is not a valid CIDR (address/prefix)`);
        }
        (family === 4 ? v4 : v6).addSubnet(base, prefix, family === 4 ? 'ipv4' : 'ipv6');
      } else if (family === 4) {
        v4.addAddress(base, 'ipv4');
      } else if (family === 6) {
        v6.addAddress(base, 'ipv6');
      } else if (!hostsAllowed) {
        throw new Error(`"${entry}" is not an IP address or CIDR`);
      } else if (base.startsWith('.') && isName(base.slice(1))) {
        suffixes.push(base);
      } else if (isName(base)) {
        hosts.add(base);
      } else {
        const hint = entry.startsWith('*.') ? ` (write a suffix as ${entry.slice(1)})` : '';
        throw new Error(`"${entry}" is not a host name, host suffix, IP address or CIDR${hint}`);
      }
    }
    return new AllowList(hosts, suffixes, v4, v6, entries.length);
  }

  /** Whether a URL host (name or IP, brackets and trailing dot allowed) is allow-listed by name, suffix or address. */
  allowsHost(hostname: string): boolean {
    if (this.size === 0) return false;
    const host = normalizeHost(hostname);
    if (net.isIP(host)) return this.allowsAddress(host);
    return this.hosts.has(host) || this.suffixes.some((s) => host.endsWith(s));
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
