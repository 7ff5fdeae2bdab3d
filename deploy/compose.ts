/**
 * deploy/compose.yaml, rendered from the topology (deploy/topology.ts): the test bed's shape in
 * containers. PostgreSQL, PgBouncer in transaction mode (the ini deploy/pgbouncer.ts renders), one Redis,
 * `service.nodes` replicas of the service, and HAProxy in front (deploy/haproxy.ts in DNS mode: the
 * replicas are the A records of the compose service's name). Secrets come from deploy/secrets/, which
 * is never committed (deploy/secrets.example/ shows its files).
 */
import type { Topology } from './topology.ts';
import { serviceEnvironment } from './kubernetes.ts';

/** What compose.yaml names that is not in the topology. */
export interface ComposeOptions {
  images: { service: string; postgres: string; redis: string; pgbouncer: string; haproxy: string };
  /** The compose service whose replicas HAProxy resolves (deploy/haproxy.ts `dns.serviceName`). */
  serviceName: string;
}

/** A healthcheck that runs a command in the container. */
const check = (test: string[], startPeriod = '10s') => ({
  test,
  interval: '5s',
  timeout: '3s',
  retries: 5,
  start_period: startPeriod,
});

const healthy = { condition: 'service_healthy' };

/** The compose document as data (compose.yaml is its YAML). */
export function composeDocument(topology: Topology, opts: ComposeOptions): Record<string, unknown> {
  const { postgres, pgbouncer, redis, service, balancer } = topology;
  return {
    name: 'content-firewall',
    services: {
      postgres: {
        image: opts.images.postgres,
        environment: {
          POSTGRES_DB: postgres.database,
          POSTGRES_USER: postgres.user,
          POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password',
        },
        secrets: ['postgres_password'],
        volumes: ['postgres-data:/var/lib/postgresql/data'],
        healthcheck: check(['CMD', 'pg_isready', '-U', postgres.user, '-d', postgres.database]),
        restart: 'unless-stopped',
      },
      pgbouncer: {
        // Debian's PgBouncer, as the test bed runs it (deploy/pgbouncer/Dockerfile).
        build: { context: 'pgbouncer' },
        image: opts.images.pgbouncer,
        volumes: ['./pgbouncer/pgbouncer.ini:/etc/pgbouncer/pgbouncer.ini:ro'],
        secrets: ['pgbouncer_userlist'],
        depends_on: { postgres: healthy },
        // The image has no PostgreSQL client: a TCP connect to the listener.
        healthcheck: check(['CMD', 'bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${pgbouncer.port}`]),
        restart: 'unless-stopped',
      },
      redis: {
        image: opts.images.redis,
        // No data of record in Redis: no persistence.
        command: ['redis-server', '--port', String(redis.port), '--save', '', '--appendonly', 'no'],
        healthcheck: check(['CMD', 'redis-cli', '-p', String(redis.port), 'ping']),
        restart: 'unless-stopped',
      },
      [opts.serviceName]: {
        build: { context: '..', dockerfile: 'deploy/Dockerfile' },
        image: opts.images.service,
        deploy: { replicas: service.nodes },
        environment: { ...serviceEnvironment(topology), PORT: String(service.port) },
        // SECRET_KEY, DATABASE_URL (through PgBouncer), REDIS_URL, METRICS_TOKEN.
        env_file: ['secrets/content-firewall.env'],
        depends_on: { pgbouncer: healthy, redis: healthy },
        // Readiness, so that HAProxy starts after the nodes can serve (the image's own check is liveness).
        healthcheck: check(
          [
            'CMD',
            'node',
            '-e',
            `fetch('http://127.0.0.1:'+(process.env.PORT||${service.port})+'${service.readyPath}').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
          ],
          '60s',
        ),
        stop_grace_period: `${Math.ceil((service.shutdown.readinessDelayMs + service.shutdown.timeoutMs) / 1000) + 5}s`,
        restart: 'unless-stopped',
      },
      haproxy: {
        // Debian's HAProxy, as the test bed runs it (deploy/haproxy/Dockerfile).
        build: { context: 'haproxy' },
        image: opts.images.haproxy,
        volumes: ['./haproxy/haproxy.cfg:/etc/haproxy/haproxy.cfg:ro'],
        ports: [`${balancer.port}:${balancer.port}`],
        depends_on: { [opts.serviceName]: healthy },
        restart: 'unless-stopped',
      },
    },
    volumes: { 'postgres-data': {} },
    secrets: {
      postgres_password: { file: 'secrets/postgres_password' },
      pgbouncer_userlist: { file: 'secrets/pgbouncer_userlist.txt' },
    },
  };
}
