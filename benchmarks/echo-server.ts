/**
 * The baseline: a bare Express 5 JSON echo of the same body on the same machine. The scan service's
 * numbers are reported as ratios to it, because absolute numbers drift on shared machines.
 */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json({ limit: '1mb' }));
app.post('/echo', (req, res) => void res.json(req.body));
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
