#!/usr/bin/env node
// The operator CLI as a binary (`npx content-firewall …`, docs in `--help`): the TypeScript sources run
// through tsx's loader, as `npm start` does, without npm's script banner on stdout (so `--json | jq` works).
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
