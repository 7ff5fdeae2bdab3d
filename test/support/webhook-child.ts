/**
 * A separate service process for the crash-and-restart tests: builds the app on DATABASE_URL with a
 * manual clock the parent moves over IPC ({set: iso}), sends deliveries with its pump, serves the API
 * on 127.0.0.1:CHILD_PORT when that is set, and tells the parent {ready: true} once it runs. The
 * parent kills it with SIGKILL mid-attempt.
 */
import http from 'node:http';
import { startApplication } from '../../server/application.ts';
import { createMetrics } from '../../lib/metrics.ts';
import { loadConfig } from '../../config.ts';
import { ManualClock } from '../../lib/clock.ts';
import { buildKeyring } from '../../lib/crypto.ts';
import { createLogger } from '../../lib/logger.ts';
import { startScanning } from '../../server/scanning.ts';
import { createPool } from '../../store/db.ts';
import { resolvePooler } from '../../store/pooler.ts';

const config = loadConfig(process.env);
const clock = new ManualClock(process.env.CHILD_CLOCK!);
const logger = createLogger(config.LOG_LEVEL);
const { pooler } = await resolvePooler(config.DATABASE_POOLER, config.DATABASE_URL!);
const db = createPool(config.DATABASE_URL!, 4, () => undefined, { pooler });
const metrics = createMetrics(false);
const scanning = await startScanning(config, metrics, logger);
const built = startApplication({
  config,
  db,
  redis: null,
  clock,
  logger,
  keyring: buildKeyring(Buffer.from(process.env.CHILD_MASTER_SECRET!)),
  engine: scanning.engine,
  metrics,
});
if (process.env.CHILD_PORT)
  await new Promise<void>((resolve) =>
    http.createServer(built.app).listen(Number(process.env.CHILD_PORT), '127.0.0.1', resolve),
  );
process.on('message', (m: { set?: string }) => {
  if (m.set) clock.set(m.set);
  process.send!({ ack: m.set });
});
process.send!({ ready: true });
