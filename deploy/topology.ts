/**
 * One description of a multi-node deployment: N service nodes behind HAProxy, PostgreSQL behind
 * PgBouncer in transaction pooling mode, one Redis. The multi-node test bed (test/multinode/) builds
 * exactly this on one machine in network namespaces, and the deployment artifacts (the compose file,
 * the Kubernetes manifests, the HAProxy and PgBouncer configurations under deploy/) are rendered
 * from it, so what the tests exercise and what operators deploy cannot drift apart.
 *
 * A dev tool (like benchmarks/): serving code never imports it.
 */

/** How the balancer checks and drains a node. */
export interface BalancerTopology {
  /** Port clients connect to. */
  port: number;
  /** Connections HAProxy holds at once (its global `maxconn`; it needs about twice as many file descriptors). */
  maxConnections: number;
  /** Readiness probe the balancer polls on every node. */
  checkPath: string;
  /** Milliseconds between two checks of one node. */
  checkIntervalMs: number;
  /** Failed checks in a row before a node is taken out. */
  fall: number;
  /** Passed checks in a row before it is put back. */
  rise: number;
  /** Connection attempts per request (the first included) before the balancer gives up. */
  retries: number;
  timeouts: { connectMs: number; clientMs: number; serverMs: number; tunnelMs: number };
}

export interface ServiceTopology {
  /** Nodes the test bed starts, and the replica count of the manifests. */
  nodes: number;
  /** Listen port of each node. */
  port: number;
  readyPath: string;
  livePath: string;
  /** Non-secret configuration every node gets (secrets come from the environment / a Secret). */
  env: Readonly<Record<string, string>>;
  /** Kubernetes resources per node; the HPA scales on CPU against `cpu.request`. */
  resources: { cpu: { request: string; limit: string }; memory: { request: string; limit: string } };
  autoscale: { min: number; max: number; targetCpuPercent: number };
  /** Nodes that may be down at once during voluntary disruptions (PodDisruptionBudget maxUnavailable). */
  maxUnavailable: number;
  /**
   * Stopping a node (SIGTERM): `/readyz` answers 503 at once and the node serves on for
   * `readinessDelayMs` (SHUTDOWN_READINESS_DELAY_MS) so the balancer takes it out, then drains for at most
   * `timeoutMs` (SHUTDOWN_TIMEOUT_MS). The artifacts set both and size Kubernetes' grace period from them.
   */
  shutdown: { readinessDelayMs: number; timeoutMs: number };
}

export interface PgBouncerTopology {
  port: number;
  poolMode: 'transaction';
  /** Server connections per (database, user) pair. */
  defaultPoolSize: number;
  maxClientConn: number;
}

export interface Topology {
  balancer: BalancerTopology;
  service: ServiceTopology;
  pgbouncer: PgBouncerTopology;
  postgres: { port: number; database: string; user: string };
  redis: { port: number };
}

export const TOPOLOGY: Topology = {
  balancer: {
    port: 8080,
    maxConnections: 4_096,
    checkPath: '/readyz',
    checkIntervalMs: 1_000,
    fall: 2,
    rise: 2,
    retries: 3,
    // tunnel: upgraded connections; an SSE stream (a streamed scan) lives under serverMs between events
    timeouts: { connectMs: 2_000, clientMs: 60_000, serverMs: 60_000, tunnelMs: 3_600_000 },
  },
  service: {
    nodes: 3,
    port: 8080,
    readyPath: '/readyz',
    livePath: '/healthz',
    env: {
      HOST: '0.0.0.0',
      PORT: '8080',
      DATABASE_POOLER: 'transaction',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
    },
    resources: { cpu: { request: '1', limit: '2' }, memory: { request: '1Gi', limit: '2Gi' } },
    autoscale: { min: 3, max: 12, targetCpuPercent: 70 },
    maxUnavailable: 1,
    shutdown: { readinessDelayMs: 3_000, timeoutMs: 10_000 },
  },
  pgbouncer: { port: 6432, poolMode: 'transaction', defaultPoolSize: 20, maxClientConn: 2_000 },
  postgres: { port: 5432, database: 'content_firewall', user: 'content_firewall' },
  redis: { port: 6379 },
};
