/**
 * haproxy.cfg rendered from the topology (deploy/topology.ts): the multi-node test bed writes it for
 * its balancer, and the compose file and the Kubernetes manifests ship the same text, so the checks,
 * retries, draining and timeouts the tests exercise are the ones operators deploy.
 *
 * Two ways to name the nodes: an explicit list of addresses (the test bed: one network namespace per
 * node), or DNS (compose, Kubernetes): `server-template` slots filled from the service name's A records.
 */
import type { Topology } from './topology.ts';

/** One service node the balancer sends requests to. */
export interface HaproxyServer {
  /** Letters, digits, `-`, `_`, `.` (HAProxy's stats and logs show it). */
  name: string;
  host: string;
  port: number;
}

/** Nodes found through DNS: every A record of `serviceName` fills one of `slots` server slots. */
export interface HaproxyDns {
  /** `ip:port` of the resolver: `127.0.0.11:53` under Docker compose, the cluster DNS in Kubernetes. */
  resolver: string;
  /** Name whose A records are the nodes (a compose service, a headless Kubernetes Service). */
  serviceName: string;
  /** Most nodes the balancer can hold (slots without a record stay in maintenance). */
  slots: number;
}

export type HaproxyOptions = (
  { servers: readonly HaproxyServer[]; dns?: undefined } | { dns: HaproxyDns; servers?: undefined }
) & {
  /** Address the frontend binds (default every address). */
  bindAddress?: string;
  /**
   * A second listener with HAProxy's own statistics page (`/stats`, `;csv` for machines) and a
   * `/healthz` that answers 200 while HAProxy runs. Bound to `statsBindAddress` (default 127.0.0.1:
   * statistics name every node, so they are not for clients).
   */
  statsPort?: number;
  statsBindAddress?: string;
  /** Path of the runtime API socket (`show stat`, `set server ... state drain`), admin level, mode 600. */
  adminSocket?: string;
  /** Log to stdout (a container's log) rather than nowhere. */
  logToStdout?: boolean;
  /** Write the master's pid here (the test bed signals it). */
  pidFile?: string;
};

const NAME = /^[A-Za-z0-9_.-]+$/;
const ADDRESS = /^[A-Za-z0-9_.:[\]-]+$/;

/**
 * Renders haproxy.cfg for `topology`: one HTTP frontend on `balancer.port`, one backend over the nodes
 * with readiness checks, retries with redispatch, draining and SSE-safe timeouts.
 * @throws Error when a name or address would not be one HAProxy token, or the options name no node.
 */
export function renderHaproxyConfig(topology: Topology, opts: HaproxyOptions): string {
  const { balancer, service } = topology;
  const lines: string[] = [];
  const add = (...more: string[]): void => void lines.push(...more);

  add(
    '# Rendered from deploy/topology.ts by deploy/haproxy.ts: edit those, not this file.',
    'global',
    `    maxconn ${balancer.maxConnections}`,
  );
  if (opts.logToStdout) add('    log stdout format raw local0');
  if (opts.pidFile !== undefined) add(`    pidfile ${token(opts.pidFile, 'pidFile', /^[^\s#]+$/)}`);
  if (opts.adminSocket !== undefined) {
    add(`    stats socket ${token(opts.adminSocket, 'adminSocket', /^[^\s#]+$/)} mode 600 level admin`);
  }
  add(
    '',
    'defaults',
    '    mode http',
    // Without a log target HAProxy logs nothing (and warns about a log format), so only then.
    ...(opts.logToStdout ? ['    log global', '    option httplog', '    option dontlognull'] : []),
    `    timeout connect ${balancer.timeouts.connectMs}ms`,
    `    timeout client ${balancer.timeouts.clientMs}ms`,
    `    timeout server ${balancer.timeouts.serverMs}ms`,
    // An upgraded connection (WebSocket, CONNECT) lives by this one instead of client/server. An SSE
    // stream (a streamed scan) is an ordinary response: `timeout server` bounds the silence between
    // two of its events, and a streamed scan ends within SCAN_DEADLINE_MS anyway.
    `    timeout tunnel ${balancer.timeouts.tunnelMs}ms`,
    `    timeout http-request ${Math.min(balancer.timeouts.clientMs, 10_000)}ms`,
    `    timeout http-keep-alive ${Math.min(balancer.timeouts.clientMs, 10_000)}ms`,
    `    timeout queue ${balancer.timeouts.connectMs}ms`,
    `    timeout check ${balancer.timeouts.connectMs}ms`,
    // topology.retries counts the first attempt; HAProxy's `retries` counts only the ones after it.
    `    retries ${Math.max(0, balancer.retries - 1)}`,
    // Only a failed connection is retried (the request never reached a node), so a scan is never
    // run twice by the balancer; redispatch sends the retry to another node.
    '    retry-on conn-failure',
    '    option redispatch 1',
    '',
    'frontend content_firewall',
    `    bind ${opts.bindAddress === undefined ? '' : token(opts.bindAddress, 'bindAddress', ADDRESS)}:${balancer.port}`,
    // The nodes trust X-Forwarded-For (TRUST_PROXY) for the rate limiter's client address: a value the
    // client sent must never reach them, only the address HAProxy saw.
    '    http-request del-header X-Forwarded-For',
    '    option forwardfor',
    '    default_backend nodes',
    '',
    'backend nodes',
    '    balance roundrobin',
    `    option httpchk GET ${token(balancer.checkPath, 'checkPath', /^\/[^\s#]*$/)}`,
    '    http-check expect status 200',
    // Draining: a node that stops being ready (its /readyz answers 503 while it shuts down) gets no
    // new requests after `fall` checks, while the requests it holds run to their end (no
    // `on-marked-down shutdown-sessions`). A refused connection marks it down at once.
    `    default-server check inter ${balancer.checkIntervalMs}ms fall ${balancer.fall} rise ${balancer.rise} observe layer4 error-limit 1 on-error mark-down`,
  );

  if (opts.dns !== undefined) {
    const { dns } = opts;
    if (!Number.isInteger(dns.slots) || dns.slots < 1) throw new Error('haproxy: dns.slots must be a whole number ≥ 1');
    add(
      `    server-template node 1-${dns.slots} ${token(dns.serviceName, 'dns.serviceName', NAME)}:${service.port} resolvers dns init-addr none resolve-prefer ipv4`,
    );
  } else {
    if (opts.servers.length === 0) throw new Error('haproxy: no servers');
    for (const server of opts.servers) {
      add(
        `    server ${token(server.name, 'server name', NAME)} ${hostPort(server.host, server.port, 'server address')}`,
      );
    }
  }

  if (opts.dns !== undefined) {
    add(
      '',
      // Nodes come and go (a rolling update, the autoscaler): re-resolve every second.
      'resolvers dns',
      `    nameserver dns1 ${token(opts.dns.resolver, 'dns.resolver', ADDRESS)}`,
      '    resolve_retries 3',
      '    timeout resolve 1s',
      '    timeout retry 1s',
      '    hold valid 10s',
      '    hold obsolete 10s',
      '    accepted_payload_size 8192',
    );
  }

  if (opts.statsPort !== undefined) {
    add(
      '',
      'listen stats',
      `    bind ${token(opts.statsBindAddress ?? '127.0.0.1', 'statsBindAddress', ADDRESS)}:${port(opts.statsPort)}`,
      '    stats enable',
      '    stats uri /stats',
      '    stats refresh 5s',
      '    monitor-uri /healthz',
    );
  }
  return `${lines.join('\n')}\n`;
}

function hostPort(host: string, value: number, what: string): string {
  const safe = token(host, what, ADDRESS);
  return `${safe.includes(':') && !safe.startsWith('[') ? `[${safe}]` : safe}:${port(value)}`;
}

function port(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 65_535) throw new Error(`haproxy: port ${value} out of range`);
  return value;
}

/** A value that lands in the configuration as one token: nothing that could start a new directive. */
function token(value: string, what: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new Error(`haproxy: ${what} ${JSON.stringify(value)} is not a single token`);
  return value;
}
