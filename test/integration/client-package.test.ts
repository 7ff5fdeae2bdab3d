/**
 * The published package as its users get it: imported by plain Node (no tsx, no TypeScript), as ES
 * module and CommonJS, from the built `dist/client/` (npm ci's `prepare` builds it; `npm run
 * build:client` by hand). `content-firewall/webhooks`: a signature it makes verifies, a tampered body
 * does not. `content-firewall`: the API client, which also bundles for browsers (no `node:` import).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `source` with plain Node in the repository (the package resolves itself by name). */
function plainNode(source: string, type: 'module' | 'commonjs'): string {
  return execFileSync(process.execPath, [`--input-type=${type}`, '-e', source], {
    cwd: root,
    // vitest's own loader flags must not reach the child: plain Node only
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  }).trim();
}

const check = (imports: string) => `${imports}
const secret = 'whsec_test_0123456789abcdef';
const body = JSON.stringify({ type: 'scan.blocked', id: 'evt_1' });
const t = Math.floor(Date.now() / 1000);
const header = signWebhookPayload(body, [secret], t);
const ok = verifyWebhookSignature(body, header, secret);
let tampered;
try { verifyWebhookSignature(body + ' ', header, secret); tampered = 'accepted'; }
catch (err) { tampered = err instanceof InvalidWebhookSignatureError ? err.code : String(err); }
const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x' });
console.log(JSON.stringify({ t: ok.timestamp === t, tampered, client: typeof client.apiKeys.iterate }));`;

it('the package is built (dist/client/: npm ci runs prepare → build:client)', () => {
  expect(existsSync(path.join(root, 'dist/client/index.js')), 'run npm run build:client').toBe(true);
  expect(existsSync(path.join(root, 'dist/client/index.d.ts'))).toBe(true);
});

it('imports from plain Node as an ES module', () => {
  const out = plainNode(
    check(
      "import { signWebhookPayload, verifyWebhookSignature, InvalidWebhookSignatureError } from 'content-firewall/webhooks';\n" +
        "import { createClient } from 'content-firewall';",
    ),
    'module',
  );
  expect(JSON.parse(out)).toEqual({ t: true, tampered: 'invalid_signature', client: 'function' });
});

it('requires from plain Node as CommonJS', () => {
  const out = plainNode(
    check(
      "const { signWebhookPayload, verifyWebhookSignature, InvalidWebhookSignatureError } = require('content-firewall/webhooks');\n" +
        "const { createClient } = require('content-firewall');",
    ),
    'commonjs',
  );
  expect(JSON.parse(out)).toEqual({ t: true, tampered: 'invalid_signature', client: 'function' });
});

/** Bundles `entry` for a browser; esbuild refuses a `node:` import there. */
const browserBundle = (entry: string) =>
  build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });

it('the main entry bundles for browsers; the webhooks entry, which needs node:crypto, does not', async () => {
  const bundle = await browserBundle('dist/client/index.js');
  expect(bundle.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
  await expect(browserBundle('dist/client/webhooks.js')).rejects.toThrow(/node:crypto/);
});
