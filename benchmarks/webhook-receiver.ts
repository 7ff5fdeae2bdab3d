/**
 * The benchmark's webhook receiver: HTTPS (the test CA's certificate), answers 204 to every POST,
 * reads the whole body like a real receiver would. A separate process, so it does not share the
 * service's event loop.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';

const tls = path.resolve(import.meta.dirname, '..', 'test', 'fixtures', 'tls');
let received = 0;
const server = https.createServer(
  { key: readFileSync(path.join(tls, 'receiver.key')), cert: readFileSync(path.join(tls, 'receiver.pem')) },
  (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  },
);
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => {
  process.stderr.write(`received ${received}\n`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
