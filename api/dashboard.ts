/**
 * The dashboard (dashboard/, built by `npm run build:dashboard` into dist/dashboard/): a single-page
 * app served at `/dashboard`, on the API's origin so it calls the API without CORS. Not an API route:
 * it is outside the route table and the OpenAPI document, needs no credential (the app asks for one
 * and keeps it in memory), and is mounted before identification and rate limiting, like the probes.
 *
 * `/dashboard` and every `/dashboard/*` path that is not an asset answer index.html (the app routes
 * in the browser), revalidated on every load; `/dashboard/assets/*` answers Vite's content-hashed
 * files, cached for a year; `/dashboard/config.json` tells the app whether it may offer SSO sign-in
 * and with which client; `/invites/accept` (where invite links once pointed) redirects to the app's
 * accept page, the browser carrying the `#token=` fragment over. Every answer carries the headers of api/static-file.ts and the page a
 * Content-Security-Policy that lets nothing run or load but this origin's files (and, with SSO, lets
 * the page call the issuer's discovery and token endpoints).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Config } from '../config.ts';
import { Errors } from '../lib/errors.ts';
import { fromRoot } from '../lib/package-root.ts';
import { IMMUTABLE, NO_STORE, REVALIDATE, selfOnlyPolicy, sendStatic } from './static-file.ts';

/** Where `npm run build:dashboard` writes the app (dashboard/vite.config.ts). */
export const DASHBOARD_DIST = `${fromRoot('dist/dashboard')}${path.sep}`;

/** The variables the dashboard's routes read: the SSO issuer, and the dashboard's client there. */
export type DashboardConfig = Pick<
  Config,
  'OIDC_ISSUER' | 'OIDC_AUDIENCE' | 'DASHBOARD_OIDC_CLIENT_ID' | 'DASHBOARD_OIDC_SCOPE'
>;

/** What the app needs to sign a person in with SSO (`GET /dashboard/config.json`): null without SSO. */
export interface DashboardSso {
  issuer: string;
  client_id: string;
  audience: string;
  scope: string;
}

/** The SSO sign-in this configuration offers: an issuer, its audience and the dashboard's client, or none. */
export function dashboardSso(config: DashboardConfig): DashboardSso | null {
  const { OIDC_ISSUER: issuer, OIDC_AUDIENCE: audience, DASHBOARD_OIDC_CLIENT_ID: clientId } = config;
  if (!issuer || !audience || !clientId) return null;
  return { issuer, client_id: clientId, audience, scope: config.DASHBOARD_OIDC_SCOPE };
}

/**
 * The page's policy: scripts, styles, images and API calls from this origin only; no inline script
 * or style, no plugin, no form posting elsewhere, no framing. `data:` images: the page's empty icon.
 * With SSO sign-in the page also fetches the issuer's discovery document and token endpoint, so the
 * issuer's origin (and only it) joins `connect-src`.
 */
export function dashboardPolicy(config: DashboardConfig): string {
  const sso = dashboardSso(config);
  return selfOnlyPolicy({ connect: sso ? [new URL(sso.issuer).origin] : [] });
}

/** The media types of the files a Vite build writes under assets/, by extension. */
const ASSET_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** A file name Vite writes under assets/ (`index-B1x_yZ.js`): no directory, no leading dot. */
const ASSET_NAME = /^[\w-][\w.-]*$/;

/** The file's bytes, or null when it does not exist. */
async function readIfPresent(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** `GET /dashboard/assets/:file`: a built asset, or 404 when there is no such file. */
function asset(dir: string) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.file);
    const type = ASSET_TYPES[path.extname(name)];
    const body = type && ASSET_NAME.test(name) ? await readIfPresent(path.join(dir, 'assets', name)) : null;
    if (!type || !body) return next(Errors.routeNotFound(req.method, req.path));
    sendStatic(res, { type, cache: IMMUTABLE, body });
  };
}

/** `GET /dashboard` and the app's own paths: index.html, or 503 `dashboard.not_built` when it is missing. */
function page(dir: string, policy: string) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const body = await readIfPresent(path.join(dir, 'index.html'));
    if (!body) return next(Errors.dashboardNotBuilt());
    sendStatic(res, { type: 'text/html; charset=utf-8', cache: REVALIDATE, body, policy });
  };
}

/**
 * The dashboard's routes under `config`, serving the build in `dir` (default dist/dashboard/). The
 * files are read on each request, so a build made while the service runs is served at once.
 */
export function dashboardRouter(config: DashboardConfig, dir: string = DASHBOARD_DIST): Router {
  const router = express.Router();
  const body = JSON.stringify({ sso: dashboardSso(config) });
  const policy = dashboardPolicy(config);
  router.get('/dashboard/assets/:file', asset(dir));
  // Before the app's paths, which would answer it index.html. Not kept: it follows the configuration.
  router.get('/dashboard/config.json', (_req, res) =>
    sendStatic(res, { type: 'application/json; charset=utf-8', cache: NO_STORE, body }),
  );
  // Two routes rather than one of two paths: whatever reads `req.route.path` expects one string.
  router.get('/dashboard', page(dir, policy));
  router.get('/dashboard/{*rest}', page(dir, policy));
  // Invite links once pointed here: the browser keeps the fragment (the token) across the redirect.
  router.get('/invites/accept', (_req, res) => {
    res.set({ 'Cache-Control': NO_STORE, 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
    res.redirect(308, '/dashboard/invites/accept');
  });
  return router;
}
