import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';

describe('loadConfig', () => {
  it('has working defaults for the embedded setup', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 8080,
      DEPLOYMENT_MODE: 'self_hosted',
      BODY_LIMIT_BYTES: 1_048_576,
      AUTH_CACHE_TTL_MS: 1_000,
      API_KEY_DEFAULT_TTL_DAYS: 90,
    });
    expect(c.DATA_DIR).toBe(path.resolve('./.data'));
    expect(c.DATABASE_URL).toBeUndefined();
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({ PORT: 'http', DATABASE_URL: 'not a url', DEPLOYMENT_MODE: 'cloud', SECRET_KEY: 'short' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const keys = (err as ConfigError).issues.map((i) => i.split(':')[0]);
      expect(keys).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'DEPLOYMENT_MODE', 'SECRET_KEY']));
    }
  });

  it('refuses open metrics in saas mode (they span every organization)', () => {
    expect(() => loadConfig({ DEPLOYMENT_MODE: 'saas' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ DEPLOYMENT_MODE: 'saas', METRICS_ENABLED: 'false' }).DEPLOYMENT_MODE).toBe('saas');
    expect(loadConfig({ DEPLOYMENT_MODE: 'saas', METRICS_TOKEN: 'a-long-metrics-token' }).METRICS_TOKEN).toBe(
      'a-long-metrics-token',
    );
  });

  it('caps the auth cache at 1 s without Redis, and lengthens it with Redis', () => {
    expect(() => loadConfig({ AUTH_CACHE_TTL_MS: '5000' })).toThrow(ConfigError);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).AUTH_CACHE_TTL_MS).toBe(30_000);
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', AUTH_CACHE_TTL_MS: '5000' }).AUTH_CACHE_TTL_MS).toBe(
      5_000,
    );
  });

  it('webhook delivery: on by default with a 10 s attempt limit; the test-only allow list and CA are checked at start', () => {
    expect(loadConfig({})).toMatchObject({
      WEBHOOK_DELIVERY_ENABLED: true,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_CONCURRENCY: 64,
      WEBHOOK_FAILING_THRESHOLD: 5,
      WEBHOOK_UNSAFE_ALLOW_HOSTS: '',
    });
    expect(
      loadConfig({ WEBHOOK_UNSAFE_ALLOW_HOSTS: '127.0.0.1, localhost, 10.0.0.0/8' }).WEBHOOK_UNSAFE_ALLOW_HOSTS,
    ).toBe('127.0.0.1, localhost, 10.0.0.0/8');
    expect(() => loadConfig({ WEBHOOK_UNSAFE_ALLOW_HOSTS: '10.0.0.0/99' })).toThrow(/WEBHOOK_UNSAFE_ALLOW_HOSTS/);
    expect(() => loadConfig({ WEBHOOK_CA_FILE: '/no/such/ca.pem' })).toThrow(/WEBHOOK_CA_FILE/);
  });

  it('WEBHOOK_ALLOW_PRIVATE: empty by default, checked at start, self-hosted only; the CA bundle is checked too', () => {
    expect(loadConfig({})).toMatchObject({ WEBHOOK_ALLOW_PRIVATE: '', WEBHOOK_CA_ONLY: false });
    const list = '10.20.0.0/16, fd12:3456::/32, .corp.example, siem.internal';
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: list }).WEBHOOK_ALLOW_PRIVATE).toBe(list);
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/8 *.corp.example' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE: "\*\.corp\.example" .*write a suffix as \.corp\.example/,
    );
    const saas = { DEPLOYMENT_MODE: 'saas', METRICS_ENABLED: 'false' };
    expect(() => loadConfig({ ...saas, WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/8' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE: self-hosted only/,
    );
    expect(() => loadConfig({ ...saas, WEBHOOK_UNSAFE_ALLOW_HOSTS: '127.0.0.1' })).toThrow(
      /WEBHOOK_UNSAFE_ALLOW_HOSTS: self-hosted only/,
    );
    const ca = path.join(import.meta.dirname, '..', 'fixtures', 'tls', 'ca.pem');
    expect(loadConfig({ WEBHOOK_CA_FILE: ca, WEBHOOK_CA_ONLY: 'true' }).WEBHOOK_CA_ONLY).toBe(true);
    expect(() => loadConfig({ WEBHOOK_CA_ONLY: 'true' })).toThrow(/WEBHOOK_CA_ONLY: needs WEBHOOK_CA_FILE/);
    expect(() =>
      loadConfig({ WEBHOOK_CA_FILE: path.join(import.meta.dirname, '..', 'fixtures', 'tls', 'README.md') }),
    ).toThrow(/WEBHOOK_CA_FILE: .* holds no PEM certificate/);
    expect(() => loadConfig({ WEBHOOK_CA_FILE: import.meta.dirname })).toThrow(/WEBHOOK_CA_FILE: .* cannot be read/);
  });

  it('listens on loopback by default; /metrics answers loopback and METRICS_ALLOW without a token', () => {
    expect(loadConfig({})).toMatchObject({ HOST: '127.0.0.1', METRICS_ENABLED: true, METRICS_ALLOW: '' });
    expect(loadConfig({ HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ METRICS_ALLOW: '10.0.0.0/8, fd00::/8' }).METRICS_ALLOW).toBe('10.0.0.0/8, fd00::/8');
    expect(() => loadConfig({ METRICS_ALLOW: 'prometheus.internal' })).toThrow(
      /METRICS_ALLOW: .*not an IP address or CIDR/,
    );
    expect(() => loadConfig({ METRICS_ALLOW: '10.0.0.0/8', METRICS_TOKEN: 'a-long-metrics-token' })).toThrow(
      /METRICS_ALLOW: unused with METRICS_TOKEN/,
    );
  });

  it('records detection audit events for non-allowed scans unless told otherwise', () => {
    expect(loadConfig({}).AUDIT_DETECTION_EVENTS).toBe('non_allowed');
    expect(loadConfig({ AUDIT_DETECTION_EVENTS: 'all' }).AUDIT_DETECTION_EVENTS).toBe('all');
    expect(() => loadConfig({ AUDIT_DETECTION_EVENTS: 'some' })).toThrow(/AUDIT_DETECTION_EVENTS/);
  });

  it('POOL_SLICE_MS: 5 by default, 0 turns slicing off, negatives and fractions are refused', () => {
    expect(loadConfig({}).POOL_SLICE_MS).toBe(5);
    expect(loadConfig({}).WORKER_NICE).toBe(0);
    expect(loadConfig({ POOL_SLICE_MS: '0' }).POOL_SLICE_MS).toBe(0);
    for (const bad of ['-1', '1.5', 'many']) expect(() => loadConfig({ POOL_SLICE_MS: bad })).toThrow(/POOL_SLICE_MS/);
  });

  it('POOL_TENANT_QUEUE_MAX: a quarter of POOL_QUEUE_MAX by default', () => {
    const c = loadConfig({});
    expect(c.POOL_TENANT_QUEUE_MAX * 4).toBe(c.POOL_QUEUE_MAX);
  });

  it('RATE_LIMIT_SCAN_CHARS: must let the largest scan through', () => {
    expect(loadConfig({}).RATE_LIMIT_SCAN_CHARS).toBe(500_000_000);
    expect(loadConfig({ RATE_LIMIT_SCAN_CHARS: '500000' }).RATE_LIMIT_SCAN_CHARS).toBe(500_000);
    expect(() => loadConfig({ RATE_LIMIT_SCAN_CHARS: '499999' })).toThrow(/RATE_LIMIT_SCAN_CHARS.*SCAN_MAX_TEXT_CHARS/);
    expect(loadConfig({ RATE_LIMIT_SCAN_CHARS: '1000', SCAN_MAX_TEXT_CHARS: '1000' }).RATE_LIMIT_SCAN_CHARS).toBe(
      1_000,
    );
  });

  it('SEMANTIC_WINDOW_CACHE: 256 windows by default, 0 turns the cache off, negatives and fractions are refused', () => {
    expect(loadConfig({}).SEMANTIC_WINDOW_CACHE).toBe(256);
    expect(loadConfig({ SEMANTIC_WINDOW_CACHE: '0' }).SEMANTIC_WINDOW_CACHE).toBe(0);
    for (const bad of ['-1', '1.5', 'many'])
      expect(() => loadConfig({ SEMANTIC_WINDOW_CACHE: bad })).toThrow(/SEMANTIC_WINDOW_CACHE/);
  });

  it('ENCODER_PRECISION: int8 by default, fp32 or int8, anything else is refused', () => {
    expect(loadConfig({}).ENCODER_PRECISION).toBe('int8');
    expect(loadConfig({ ENCODER_PRECISION: 'fp32' }).ENCODER_PRECISION).toBe('fp32');
    expect(loadConfig({ ENCODER_PRECISION: 'int8' }).ENCODER_PRECISION).toBe('int8');
    for (const bad of ['INT8', 'fp16', 'int4'])
      expect(() => loadConfig({ ENCODER_PRECISION: bad })).toThrow(/ENCODER_PRECISION/);
  });

  it('RESULT_CACHE_*: 32 MiB and an hour by default, 0 bytes turns the cache off, negatives and fractions are refused', () => {
    expect(loadConfig({}).RESULT_CACHE_BYTES).toBe(32 * 1024 * 1024);
    expect(loadConfig({}).RESULT_CACHE_TTL_SECONDS).toBe(3_600);
    expect(loadConfig({ RESULT_CACHE_BYTES: '0' }).RESULT_CACHE_BYTES).toBe(0);
    for (const bad of ['-1', '1.5', 'many'])
      expect(() => loadConfig({ RESULT_CACHE_BYTES: bad })).toThrow(/RESULT_CACHE_BYTES/);
    for (const bad of ['0', '1.5', 'many'])
      expect(() => loadConfig({ RESULT_CACHE_TTL_SECONDS: bad })).toThrow(/RESULT_CACHE_TTL_SECONDS/);
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it('takes the SSO and identity-provider variables only together, the management API only in saas mode', () => {
    const saas = { DEPLOYMENT_MODE: 'saas', METRICS_ENABLED: 'false' };
    const issuer = { OIDC_ISSUER: 'https://idp.example.com', OIDC_AUDIENCE: 'https://firewall.example.com' };
    const idp = { IDP_MANAGEMENT_URL: 'https://idp.example.com/api', IDP_CLIENT_ID: 'c', IDP_CLIENT_SECRET: 's' };
    expect(() => loadConfig({ OIDC_ISSUER: issuer.OIDC_ISSUER })).toThrow(/OIDC_AUDIENCE/);
    expect(() => loadConfig({ OIDC_AUDIENCE: issuer.OIDC_AUDIENCE })).toThrow(/OIDC_ISSUER/);
    expect(loadConfig(issuer).OIDC_CLOCK_TOLERANCE_SECONDS).toBe(60);
    expect(() => loadConfig({ ...saas, ...issuer, IDP_MANAGEMENT_URL: idp.IDP_MANAGEMENT_URL })).toThrow(
      /set all three/,
    );
    expect(() => loadConfig({ ...saas, ...idp })).toThrow(/OIDC_ISSUER: required with IDP_MANAGEMENT_URL/);
    expect(() => loadConfig({ ...issuer, ...idp })).toThrow(/only in saas mode/);
    expect(loadConfig({ ...saas, ...issuer, ...idp }).IDP_CLIENT_ID).toBe('c');
    expect(loadConfig({}).INVITE_TTL_HOURS).toBe(168);
  });

  it("takes the dashboard's SSO client only with an issuer, and asks for openid profile email by default", () => {
    const issuer = { OIDC_ISSUER: 'https://idp.example.com', OIDC_AUDIENCE: 'https://firewall.example.com' };
    expect(() => loadConfig({ DASHBOARD_OIDC_CLIENT_ID: 'dashboard' })).toThrow(
      /OIDC_ISSUER: required with DASHBOARD_OIDC_CLIENT_ID/,
    );
    const config = loadConfig({ ...issuer, DASHBOARD_OIDC_CLIENT_ID: 'dashboard' });
    expect(config.DASHBOARD_OIDC_CLIENT_ID).toBe('dashboard');
    expect(config.DASHBOARD_OIDC_SCOPE).toBe('openid profile email');
    expect(loadConfig({ DASHBOARD_OIDC_SCOPE: '' }).DASHBOARD_OIDC_SCOPE).toBe('openid profile email');
    expect(loadConfig({ DASHBOARD_OIDC_SCOPE: 'openid email' }).DASHBOARD_OIDC_SCOPE).toBe('openid email');
    expect(loadConfig({ DASHBOARD_OIDC_CLIENT_ID: '' }).DASHBOARD_OIDC_CLIENT_ID).toBeUndefined();
  });
});
