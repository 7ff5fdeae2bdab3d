/**
 * The durable echo as a process (durable-echo.ts): the service's configuration from the environment
 * (DATABASE_URL or the embedded cluster under DATA_DIR, SECRET_KEY, PORT, HOST), listening on the
 * service's server options; prints `listening <port>` when ready; SIGTERM drains the writer and exits.
 */
import http from 'node:http';
import { serverOptions } from '../api/base-app.ts';
import { loadConfigOrReport } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { openRuntime } from '../server/runtime.ts';
import { buildDurableEcho } from './durable-echo.ts';

const config = loadConfigOrReport();
if (!config) process.exit(1);
const logger = createLogger(config.LOG_LEVEL);
const runtime = await openRuntime(config, logger);
const echo = buildDurableEcho({ ...runtime, config, clock: systemClock, logger });
const server = http.createServer(serverOptions(echo.app), echo.app);
// As the service's listener: longer than a load generator's idle connections.
server.keepAliveTimeout = 65_000;
server.listen(config.PORT, config.HOST, () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () =>
  server.close(() => void echo.close().then(() => runtime.close().then(() => process.exit(0)))),
);
