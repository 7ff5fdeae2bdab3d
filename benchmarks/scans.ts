/**
 * `POST /v1/scans` under autocannon, next to a bare Express JSON echo measured in the same run.
 *
 *   npm run bench:scans -- [--connections 50] [--duration 10] [--body-chars 1000] [--tiers fast,accurate] [--json]
 *
 * Starts the real service (api/server.ts) as a child process against DATABASE_URL (default: the
 * local server, database `cf_bench`, created fresh), mints an org and key, warms up, then runs the
 * echo and each tier for the same duration and connection count with the same mix of bodies
 * (60% benign, 20% injection, 20% PII). Writes benchmarks/results/scans-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildKeyring } from '../lib/crypto.ts';
import { systemClock } from '../lib/clock.ts';
import { createApiKey } from '../services/api-keys.ts';
import { createOrganization } from '../services/organizations.ts';
import { LocalInvalidationBus } from '../services/invalidation-bus.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { benchmarkDatabase } from './database.ts';
import { bodies } from './fixtures.ts';
import { freePort, load, ROOT as root, start, summary } from './processes.ts';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    'body-chars': { type: 'string', default: '1000' },
    tiers: { type: 'string', default: 'fast,accurate' },
    json: { type: 'boolean', default: false },
  },
});
const connections = Number(args.connections);
const duration = Number(args.duration);
const chars = Number(args['body-chars']);
const tiers = args.tiers!.split(',');
const SECRET = 'benchmark-secret-key-0123456789abcdef';
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);

const run = (url: string, requests: string[], headers: Record<string, string>, secs: number) => load(url, requests, { connections, seconds: secs, headers, progress: !args.json });

const databaseUrl = await benchmarkDatabase('cf_bench');
const db = createPool(databaseUrl, 2, () => undefined);
await migrate(db);
const keyring = buildKeyring(Buffer.from(SECRET, 'utf8'));
const org = await createOrganization(db, systemClock, `Bench ${Date.now()}`);
const { secret } = await createApiKey({ db, clock: systemClock, keyring, revocations: new LocalInvalidationBus(), defaultTtlDays: 1 }, org.id, { name: 'bench', scopes: ['scans:write'], environment: 'test' }, { id: 'bench', requestId: null });
await db.end();

say('starting the service and the echo baseline…');
// LOG_LEVEL=warn: per-request access logs are an operator's choice, not part of the scan path's cost.
const servicePort = await freePort();
const service = await start(['api/server.ts'], { DATABASE_URL: databaseUrl, SECRET_KEY: SECRET, PORT: String(servicePort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '100000000', METRICS_ENABLED: 'true' }, null, servicePort);
const echo = await start(['benchmarks/echo-server.ts'], { PORT: '0' }, /listening (\d+)/);
const auth = { authorization: `Bearer ${secret}` };

const results: Record<string, ReturnType<typeof summary>> = {};
try {
  say('warming up (3 s each)…');
  await run(`http://127.0.0.1:${echo.port}/echo`, bodies(chars), {}, 3);
  for (const tier of tiers) await run(`http://127.0.0.1:${service.port}/v1/scans`, bodies(chars, 'user_message', tier), auth, 3);
  say(`echo: ${connections} connections, ${duration} s`);
  results.echo = summary(await run(`http://127.0.0.1:${echo.port}/echo`, bodies(chars), {}, duration));
  for (const tier of tiers) {
    say(`scans tier=${tier}: ${connections} connections, ${duration} s`);
    results[`scans_${tier}`] = summary(await run(`http://127.0.0.1:${service.port}/v1/scans`, bodies(chars, 'user_message', tier), auth, duration));
  }
} finally {
  service.child.kill('SIGTERM');
  echo.child.kill('SIGTERM');
}

const report = {
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
  settings: { connections, duration_s: duration, body_chars: chars, mix: '60% benign, 20% injection, 20% PII' },
  results,
  ratios: Object.fromEntries(tiers.map((t) => [`scans_${t}_vs_echo`, Math.round((results[`scans_${t}`]!.req_per_s / results.echo!.req_per_s) * 1000) / 1000])),
};
mkdirSync(path.join(root, 'benchmarks/results'), { recursive: true });
const file = path.join(root, 'benchmarks/results', `scans-${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  console.table(results);
  console.log('ratios', report.ratios, '\nwritten', path.relative(root, file));
}
process.exit(0);
