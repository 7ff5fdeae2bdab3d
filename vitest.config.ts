import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The multi-node bed has its own run (npm run test:multinode: namespaces, root).
    exclude: ['**/node_modules/**', 'test/multinode/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests that open onnxruntime sessions directly (not through inference/) keep its telemetry off too.
    env: { ORT_DISABLE_TELEMETRY: '1' },
  },
});
