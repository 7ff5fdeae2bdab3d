/**
 * Builds the dashboard (`npm run build:dashboard`) into dist/dashboard/, served by the service at
 * `/dashboard` (api/dashboard.ts). `npm run dev:dashboard` serves it with hot reload and passes the API
 * calls on to a service running on this machine (DASHBOARD_API, default http://127.0.0.1:8080).
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.DASHBOARD_API ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard/', import.meta.url)),
    emptyOutDir: true,
  },
  server: { proxy: { '/v1': api } },
});
