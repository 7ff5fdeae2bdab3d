/**
 * Clients generated from the OpenAPI document work: two independent generators, @hey-api/openapi-ts
 * (its fetch client) and orval (its fetch client), each generate a client from the document the
 * running service serves; the TypeScript compiler builds them, with the calls below, in strict mode;
 * and the calls create a scan (the document's default request example), list scans and get the
 * scan against that service. The default create call must answer the scan as JSON: the event stream
 * a scan can also answer is stated so that neither generator makes a streaming call of it
 * (api/openapi/paths.ts `eventStream`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_EXAMPLES } from '../../api/openapi/examples.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/** What each generated client's round trip reports. */
interface RoundTrip {
  status: number;
  contentType: string | null;
  created: { id: string; decision: { action: string } };
  listed: string[];
  got: { id: string };
}

/**
 * The calls, compiled against the generated code: a `Scan` typed result is required of the create
 * call (a streaming call, or an `unknown` result, does not compile), the errors are narrowed away.
 */
const CALLS = `
import { createClient } from './hey/client/index.js';
import { createScan, getScan, listScans } from './hey/sdk.gen.js';
import type { CreateScanData, Scan } from './hey/types.gen.js';
import * as orval from './orval/api.js';

export async function heyApi(baseUrl: string, key: string, body: unknown) {
  const client = createClient({ baseUrl, auth: key });
  const created = await createScan({ client, body: body as CreateScanData['body'], throwOnError: true });
  const scan: Scan = created.data;
  const page = await listScans({ client, query: { limit: 10 }, throwOnError: true });
  const got = await getScan({ client, path: { scan_id: scan.id }, throwOnError: true });
  return {
    status: created.response.status,
    contentType: created.response.headers.get('content-type'),
    created: scan,
    listed: page.data.data.map((s) => s.id),
    got: got.data,
  };
}

export async function orvalFetch(key: string, body: unknown) {
  const init = { headers: { authorization: 'Bearer ' + key } };
  const created = await orval.createScan(body as orval.CreateScanBody, init);
  if (created.status !== 201) throw new Error('createScan answered ' + created.status);
  const scan: orval.Scan = created.data;
  const page = await orval.listScans({ limit: 10 }, init);
  if (page.status !== 200) throw new Error('listScans answered ' + page.status);
  const got = await orval.getScan(scan.id, init);
  if (got.status !== 200) throw new Error('getScan answered ' + got.status);
  return {
    status: created.status,
    contentType: created.headers.get('content-type'),
    created: scan,
    listed: page.data.data.map((s) => s.id),
    got: got.data,
  };
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    outDir: 'out',
    rootDir: '.',
  },
  include: ['calls.ts', 'hey/**/*.ts', 'orval/**/*.ts'],
};

let app: TestApp;
let org: TestOrg;
let dir: string;
let calls: {
  heyApi(baseUrl: string, key: string, body: unknown): Promise<RoundTrip>;
  orvalFetch(key: string, body: unknown): Promise<RoundTrip>;
};

const example = Object.values(REQUEST_EXAMPLES.createScan!)[0]!;

beforeAll(async () => {
  // A model worker: the example is scanned by every detector, as a deployment scans it.
  app = await startTestApp({ env: { WORKER_THREADS: '1' } });
  org = await buildOrg(app, 'Generated clients');
  dir = await mkdtemp(path.join(tmpdir(), 'cf-openapi-clients-'));
  const document = await call(app, 'GET', '/openapi.json');
  const write = (name: string, text: string) => writeFile(path.join(dir, name), text);
  await write('openapi.json', document.text);
  await write('package.json', JSON.stringify({ type: 'module' }));
  await write('tsconfig.json', JSON.stringify(TSCONFIG));
  await write('calls.ts', CALLS);
  await write(
    'openapi-ts.config.mjs',
    `export default { input: './openapi.json', output: { path: './hey', importFileExtension: '.js' }, logs: { file: false } };`,
  );
  const orvalOutput = { target: './orval/api.ts', client: 'fetch', mode: 'single', baseUrl: app.baseUrl };
  await write(
    'orval.config.mjs',
    `export default { api: { input: './openapi.json', output: ${JSON.stringify(orvalOutput)} } };`,
  );
  await Promise.all([
    run(bin('openapi-ts'), ['-f', 'openapi-ts.config.mjs'], { cwd: dir }),
    run(bin('orval'), ['--config', 'orval.config.mjs', '--quiet'], { cwd: dir }),
  ]);
  // Strict, and the build fails on any error of the generated code or of the calls.
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }).catch(
    (err: { stdout?: string }) => {
      throw new Error(`generated clients do not compile:\n${err.stdout ?? String(err)}`);
    },
  );
  calls = (await import(pathToFileURL(path.join(dir, 'out', 'calls.js')).href)) as typeof calls;
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The round trip a generated client made: the created scan as JSON, listed and read back. */
function expectRoundTrip(r: RoundTrip): void {
  expect(r.status).toBe(201);
  expect(r.contentType).toMatch(/^application\/json/);
  expect(r.created.id).toMatch(/^scan_[0-9A-HJKMNP-TV-Z]{26}$/);
  // The default example is benign: the reference page's "Try it out" is not a finding.
  expect(r.created.decision.action).toBe('allowed');
  expect(r.listed).toContain(r.created.id);
  expect(r.got.id).toBe(r.created.id);
}

describe('clients generated from the OpenAPI document', () => {
  it('@hey-api/openapi-ts: createScan answers the scan as JSON; listScans and getScan find it', async () => {
    expectRoundTrip(await calls.heyApi(app.baseUrl, org.admin, example.value));
  });

  it('orval: createScan answers the scan as JSON; listScans and getScan find it', async () => {
    expectRoundTrip(await calls.orvalFetch(org.admin, example.value));
  });
});
