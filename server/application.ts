import type { Express } from 'express';
import { buildApp } from '../api/app.ts';
import type { AppDeps, AppServices } from '../api/context.ts';
import type { DeclaredRoute } from '../api/route.ts';
import { buildServices } from './services.ts';

/** A serving process's HTTP app on its services, started. */
export interface Application {
  app: Express;
  services: AppServices;
  /** The routes mounted on `app` (method, Express path, access), read-only: tests enumerate them. */
  routeTable: readonly DeclaredRoute[];
  /** Stops what the services run (pump, writer, buses); the deps (pool, Redis, engine) belong to the caller. */
  close(): Promise<void>;
}

/** Builds the services on `deps`, mounts the HTTP app on them and starts the background parts (webhook pump). */
export function startApplication(deps: AppDeps): Application {
  const set = buildServices(deps);
  const { app, routeTable } = buildApp(set.services);
  set.start();
  return { app, services: set.services, routeTable, close: set.close };
}
