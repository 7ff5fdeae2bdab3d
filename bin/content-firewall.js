#!/usr/bin/env node
// The operator CLI as a binary (`npx content-firewall …`, docs in `--help`): the compiled build of cli/main.ts
// (`npm run build`, which `npm ci` runs), without npm's script banner on stdout (so `--json | jq` works).
// From the TypeScript sources instead: `npm run -s cli -- …`.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/app/cli.mjs', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('content-firewall: no compiled build (dist/app/cli.mjs): run npm run build\n');
  process.exit(1);
}
await import(compiled.href);
