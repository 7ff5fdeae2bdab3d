import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderHaproxyConfig } from '../../deploy/haproxy.ts';
import { renderPgbouncerIni, renderPgbouncerUserlist } from '../../deploy/pgbouncer.ts';
import { TOPOLOGY, type Topology } from '../../deploy/topology.ts';

const servers = [
  { name: 'node1', host: '10.0.0.11', port: 8080 },
  { name: 'node2', host: '10.0.0.12', port: 8080 },
];

/** The directive lines of one section (`frontend x`, `backend x`, ...), indentation dropped. */
function section(config: string, header: string): string[] {
  const blocks = config.split(/\n(?=\S)/);
  const block = blocks.find((text) => text.split('\n')[0] === header);
  if (block === undefined) throw new Error(`no section ${header}`);
  return block
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

const haproxyInstalled = spawnSync('haproxy', ['-v']).status === 0;
const scratch = mkdtempSync(join(tmpdir(), 'cf-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('renderHaproxyConfig', () => {
  const config = renderHaproxyConfig(TOPOLOGY, { servers });

  it('checks readiness on the topology path with its interval, fall and rise', () => {
    const backend = section(config, 'backend nodes');
    expect(backend).toContain(`option httpchk GET ${TOPOLOGY.balancer.checkPath}`);
    expect(backend).toContain('http-check expect status 200');
    const defaults = backend.find((line) => line.startsWith('default-server'));
    expect(defaults).toContain(`inter ${TOPOLOGY.balancer.checkIntervalMs}ms`);
    expect(defaults).toContain(`fall ${TOPOLOGY.balancer.fall}`);
    expect(defaults).toContain(`rise ${TOPOLOGY.balancer.rise}`);
    expect(backend).toContain('server node1 10.0.0.11:8080');
    expect(backend).toContain('server node2 10.0.0.12:8080');
    // draining: sessions of a node marked down are not cut
    expect(config).not.toMatch(/shutdown-sessions/);
  });

  it('retries: the topology counts the first attempt, HAProxy does not', () => {
    const defaults = section(config, 'defaults');
    expect(defaults).toContain(`retries ${TOPOLOGY.balancer.retries - 1}`);
    expect(defaults).toContain('option redispatch 1');
    expect(defaults).toContain('retry-on conn-failure');
    const once: Topology = { ...TOPOLOGY, balancer: { ...TOPOLOGY.balancer, retries: 1 } };
    expect(section(renderHaproxyConfig(once, { servers }), 'defaults')).toContain('retries 0');
  });

  it('renders every timeout, the tunnel one for SSE', () => {
    const defaults = section(config, 'defaults');
    const { timeouts } = TOPOLOGY.balancer;
    expect(defaults).toContain(`timeout connect ${timeouts.connectMs}ms`);
    expect(defaults).toContain(`timeout client ${timeouts.clientMs}ms`);
    expect(defaults).toContain(`timeout server ${timeouts.serverMs}ms`);
    expect(defaults).toContain(`timeout tunnel ${timeouts.tunnelMs}ms`);
  });

  it("drops the client's X-Forwarded-For before adding its own", () => {
    const frontend = section(config, 'frontend content_firewall');
    expect(frontend[0]).toBe(`bind :${TOPOLOGY.balancer.port}`);
    const drop = frontend.indexOf('http-request del-header X-Forwarded-For');
    const add = frontend.indexOf('option forwardfor');
    expect(drop).toBeGreaterThanOrEqual(0);
    expect(add).toBeGreaterThan(drop);
  });

  it('DNS: a resolvers section and one server-template over the slots', () => {
    const dns = renderHaproxyConfig(TOPOLOGY, {
      dns: { resolver: '127.0.0.11:53', serviceName: 'content-firewall', slots: 5 },
    });
    expect(section(dns, 'resolvers dns')).toContain('nameserver dns1 127.0.0.11:53');
    const backend = section(dns, 'backend nodes');
    expect(backend).toContain(
      `server-template node 1-5 content-firewall:${TOPOLOGY.service.port} resolvers dns init-addr none resolve-prefer ipv4`,
    );
    expect(backend.some((line) => line.startsWith('server '))).toBe(false);
  });

  it('stats listener, admin socket and pid file only when asked', () => {
    expect(config).not.toMatch(/listen stats|stats socket|pidfile/);
    const full = renderHaproxyConfig(TOPOLOGY, {
      servers,
      statsPort: 8404,
      statsBindAddress: '10.0.0.2',
      adminSocket: '/run/x/admin.sock',
      pidFile: '/run/x/haproxy.pid',
    });
    expect(section(full, 'listen stats')).toEqual(expect.arrayContaining(['bind 10.0.0.2:8404', 'stats uri /stats']));
    expect(section(full, 'global')).toEqual(
      expect.arrayContaining(['stats socket /run/x/admin.sock mode 600 level admin', 'pidfile /run/x/haproxy.pid']),
    );
  });

  it.each([
    [{ servers: [] }, /no servers/],
    [{ servers: [{ name: 'a b', host: '10.0.0.1', port: 1 }] }, /server name/],
    [{ servers: [{ name: 'a', host: '10.0.0.1\n  server evil 1.2.3.4', port: 1 }] }, /server address/],
    [{ servers: [{ name: 'a', host: '10.0.0.1', port: 70_000 }] }, /out of range/],
    [{ dns: { resolver: '127.0.0.11:53', serviceName: 'x', slots: 0 } }, /slots/],
  ])('refuses %j', (opts, message) => {
    expect(() => renderHaproxyConfig(TOPOLOGY, opts)).toThrow(message);
  });

  it.skipIf(!haproxyInstalled)('HAProxy itself accepts both renderings (haproxy -c)', () => {
    for (const [name, opts] of [
      ['list', { servers, statsPort: 8404, logToStdout: true, adminSocket: join(scratch, 'admin.sock') }],
      ['dns', { dns: { resolver: '127.0.0.11:53', serviceName: 'content-firewall', slots: 3 } }],
    ] as const) {
      const file = join(scratch, `${name}.cfg`);
      writeFileSync(file, renderHaproxyConfig(TOPOLOGY, opts));
      expect(() => execFileSync('haproxy', ['-dW', '-c', '-q', '-f', file], { stdio: 'pipe' })).not.toThrow();
    }
  });
});

describe('renderPgbouncerIni', () => {
  const ini = renderPgbouncerIni(TOPOLOGY, {
    postgresHost: '10.0.0.5',
    authType: 'scram-sha-256',
    authFile: '/etc/pgbouncer/userlist.txt',
  });
  const settings = new Map(
    ini
      .split('\n')
      .filter((line) => line.includes(' = '))
      .map((line) => line.split(' = ') as [string, string]),
  );

  it('transaction pooling with the topology pool sizes and port', () => {
    expect(settings.get('pool_mode')).toBe('transaction');
    expect(settings.get('default_pool_size')).toBe(String(TOPOLOGY.pgbouncer.defaultPoolSize));
    expect(settings.get('max_client_conn')).toBe(String(TOPOLOGY.pgbouncer.maxClientConn));
    expect(settings.get('listen_port')).toBe(String(TOPOLOGY.pgbouncer.port));
    expect(settings.get('listen_addr')).toBe('*');
    expect(settings.get('server_reset_query_always')).toBe('1');
    expect(settings.get('ignore_startup_parameters')).toBe('extra_float_digits,options');
    expect(settings.get('auth_type')).toBe('scram-sha-256');
    expect(settings.get('auth_file')).toBe('/etc/pgbouncer/userlist.txt');
  });

  it('points the database line at PostgreSQL', () => {
    const { database, port } = TOPOLOGY.postgres;
    expect(settings.get(database)).toBe(`host=10.0.0.5 port=${port} dbname=${database}`);
    expect(ini.indexOf('[databases]')).toBeLessThan(ini.indexOf(`${database} = `));
  });

  it('TLS only when asked', () => {
    expect(ini).not.toMatch(/tls/);
    const tls = renderPgbouncerIni(TOPOLOGY, {
      postgresHost: 'db',
      authType: 'md5',
      authFile: '/u',
      serverTlsMode: 'verify-full',
      clientTls: { mode: 'require', keyFile: '/k.pem', certFile: '/c.pem' },
    });
    expect(tls).toMatch(/^server_tls_sslmode = verify-full$/m);
    expect(tls).toMatch(/^client_tls_sslmode = require$/m);
    expect(tls).toMatch(/^client_tls_key_file = \/k\.pem$/m);
    expect(tls).toMatch(/^client_tls_cert_file = \/c\.pem$/m);
  });

  it('refuses a value that would break its line', () => {
    expect(() =>
      renderPgbouncerIni(TOPOLOGY, { postgresHost: 'db\npool_mode = session', authType: 'trust', authFile: '/u' }),
    ).toThrow(/postgresHost/);
  });

  it('userlist lines quote and double quotes', () => {
    expect(renderPgbouncerUserlist([{ user: 'cf', secret: 'pa"ss' }])).toBe('"cf" "pa""ss"\n');
    expect(() => renderPgbouncerUserlist([{ user: 'cf', secret: 'a\nb' }])).toThrow(/line break/);
  });
});
