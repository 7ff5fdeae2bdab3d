/**
 * The webhook URL allow list (WEBHOOK_UNSAFE_ALLOW_HOSTS): host names and addresses/CIDRs that webhook
 * URLs may use despite the SSRF rules (services/webhooks/url-guard.ts). A test-only escape hatch, empty
 * by default. Pure: config.ts parses it at start-up to refuse a bad list before anything runs.
 */
import net from 'node:net';

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
