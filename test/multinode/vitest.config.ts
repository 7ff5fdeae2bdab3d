import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The multi-node suite (npm run test:multinode, which runs vitest inside the bed's client namespace):
 * one bed for the whole run, shared by every file, so files run one after another.
 */
export default defineConfig({
  // The repository root, as for the default config (paths below are relative to it).
  root: path.resolve(import.meta.dirname, '..', '..'),
  test: {
    include: ['test/multinode/**/*.test.ts'],
    globalSetup: ['test/multinode/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    env: { ORT_DISABLE_TELEMETRY: '1' },
  },
});
