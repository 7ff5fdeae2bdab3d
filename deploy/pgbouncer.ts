/**
 * pgbouncer.ini rendered from the topology (deploy/topology.ts): the multi-node test bed runs Debian's
 * PgBouncer with it, and the compose file and the Kubernetes manifests ship the same text.
 *
 * Transaction pooling: a server connection belongs to a client for one transaction only, so the
 * service must run with `DATABASE_POOLER=transaction` (no named prepared statements, no session state).
 */
import type { Topology } from './topology.ts';

/** `sslmode`-style values PgBouncer accepts for `server_tls_sslmode` / `client_tls_sslmode`. */
export type PgbouncerTlsMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

export interface PgbouncerOptions {
  /** PostgreSQL's host as PgBouncer reaches it (its port, database and user come from the topology). */
  postgresHost: string;
  /** Address PgBouncer listens on (default every address). */
  listenAddr?: string;
  /** How clients prove who they are; `trust` only on a private test network. */
  authType: 'scram-sha-256' | 'md5' | 'trust' | 'plain';
  /** userlist.txt: `"user" "password-or-verifier"` per line (see `renderPgbouncerUserlist`). */
  authFile: string;
  /** `server_tls_sslmode` towards PostgreSQL (default PgBouncer's own: `prefer`). */
  serverTlsMode?: PgbouncerTlsMode;
  /** TLS towards the clients (the service nodes). */
  clientTls?: { mode: PgbouncerTlsMode; keyFile: string; certFile: string; caFile?: string };
  /** Unix socket directory; `''` turns the socket off (the default: only TCP). */
  unixSocketDir?: string;
  pidFile?: string;
  logFile?: string;
  /** Users allowed on PgBouncer's admin console (`SHOW POOLS`, `RELOAD`). */
  adminUsers?: readonly string[];
}

const VALUE = /^[^\s#;"'\n]*$/;

/**
 * Renders pgbouncer.ini for `topology` in transaction pooling mode.
 * @throws Error when a value would break out of its line.
 */
export function renderPgbouncerIni(topology: Topology, opts: PgbouncerOptions): string {
  const { pgbouncer, postgres } = topology;
  const lines = [
    '; Rendered from deploy/topology.ts by deploy/pgbouncer.ts: edit those, not this file.',
    '[databases]',
    `${value(postgres.database, 'database')} = host=${value(opts.postgresHost, 'postgresHost')} port=${postgres.port} dbname=${postgres.database}`,
    '',
    '[pgbouncer]',
    `listen_addr = ${value(opts.listenAddr ?? '*', 'listenAddr')}`,
    `listen_port = ${pgbouncer.port}`,
    `unix_socket_dir = ${value(opts.unixSocketDir ?? '', 'unixSocketDir')}`,
    `pool_mode = ${pgbouncer.poolMode}`,
    `default_pool_size = ${pgbouncer.defaultPoolSize}`,
    `max_client_conn = ${pgbouncer.maxClientConn}`,
    `auth_type = ${opts.authType}`,
    `auth_file = ${value(opts.authFile, 'authFile')}`,
    // In transaction mode the reset query runs only when this is set: whatever a transaction left on
    // its server connection (a SET, a temporary table) never reaches the next client.
    'server_reset_query = DISCARD ALL',
    'server_reset_query_always = 1',
    // node-postgres sends extra_float_digits at start-up, and `options` carries per-connection
    // settings PgBouncer cannot pool: ignore them rather than refuse the connection.
    'ignore_startup_parameters = extra_float_digits,options',
    // A client waiting longer than this for a server connection gets an error, not a hang.
    'query_wait_timeout = 30',
  ];
  if (opts.serverTlsMode !== undefined) lines.push(`server_tls_sslmode = ${opts.serverTlsMode}`);
  if (opts.clientTls !== undefined) {
    const tls = opts.clientTls;
    lines.push(
      `client_tls_sslmode = ${tls.mode}`,
      `client_tls_key_file = ${value(tls.keyFile, 'clientTls.keyFile')}`,
      `client_tls_cert_file = ${value(tls.certFile, 'clientTls.certFile')}`,
    );
    if (tls.caFile !== undefined) lines.push(`client_tls_ca_file = ${value(tls.caFile, 'clientTls.caFile')}`);
  }
  if (opts.pidFile !== undefined) lines.push(`pidfile = ${value(opts.pidFile, 'pidFile')}`);
  if (opts.logFile !== undefined) lines.push(`logfile = ${value(opts.logFile, 'logFile')}`);
  if (opts.adminUsers !== undefined && opts.adminUsers.length > 0) {
    lines.push(`admin_users = ${opts.adminUsers.map((user) => value(user, 'adminUsers')).join(',')}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Renders PgBouncer's auth_file: one `"user" "secret"` line each (the secret a password, an md5
 * hash or a SCRAM verifier; `"` doubled as PgBouncer expects).
 */
export function renderPgbouncerUserlist(users: readonly { user: string; secret: string }[]): string {
  const quote = (text: string): string => {
    if (/[\n\r]/.test(text)) throw new Error('pgbouncer: a user or secret may not hold a line break');
    return `"${text.replaceAll('"', '""')}"`;
  };
  return users.map(({ user, secret }) => `${quote(user)} ${quote(secret)}\n`).join('');
}

function value(text: string, what: string): string {
  if (!VALUE.test(text))
    throw new Error(`pgbouncer: ${what} ${JSON.stringify(text)} may not hold spaces, quotes, # or ;`);
  return text;
}
