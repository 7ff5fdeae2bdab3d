// api/base-app.ts serverOptions: requests and responses built on the app's own prototypes.
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serverOptions } from '../../api/base-app.ts';

describe('serverOptions', () => {
  it("builds each request and response on the app's prototypes, so Express does not re-parent them", async () => {
    const app = express();
    const seen: boolean[] = [];
    app.use(express.json());
    app.post('/echo', (req, res) => {
      seen.push(
        Object.getPrototypeOf(req) === app.request,
        Object.getPrototypeOf(res) === app.response,
        req instanceof http.IncomingMessage,
        res instanceof http.ServerResponse,
      );
      res.status(201).json({ got: req.body, path: req.path });
    });
    const server = http.createServer(serverOptions(app), app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${url}/echo?x=1`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n: i }),
        });
        expect(r.status).toBe(201);
        expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await r.json()).toEqual({ got: { n: i }, path: '/echo' });
      }
      expect((await fetch(`${url}/nothing`)).status).toBe(404);
      expect(seen).toEqual(Array(8).fill(true));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
