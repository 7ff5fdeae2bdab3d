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
    // Tests that open onnxruntime sessions directly (not through inference/) keep its telemetry off too;
    // servers the tests start and stop with SIGTERM drain at once (no balancer to wait for: the drain
    // tests set their own SHUTDOWN_READINESS_DELAY_MS).
    env: { ORT_DISABLE_TELEMETRY: '1', SHUTDOWN_READINESS_DELAY_MS: '0' },
  },
});
