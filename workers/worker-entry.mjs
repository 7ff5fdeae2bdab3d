// Piscina loads this plain-JS file in each thread; it registers the TypeScript loader and hands
// over to the real worker. (Worker threads do not inherit `--import tsx` under every runner.) The compiled
// build (npm run build) replaces it with dist/app/worker-entry.mjs, model-worker.ts bundled.
import { register } from 'tsx/esm/api';

register();
const worker = await import('./model-worker.ts');
export default worker.default;
