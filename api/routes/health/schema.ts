import { z } from 'zod';
import { resource } from '../../resources.ts';

/** The liveness answer of `/healthz` and `/health`: the process serves requests. */
export const livenessSchema = resource('Liveness', z.object({ status: z.literal('ok') }));

/** The readiness answer of `/readyz`: every dependency checked answered (else 503 `service.not_ready`). */
export const readinessSchema = resource(
  'Readiness',
  z.object({ status: z.literal('ok'), checks: z.object({ database: z.literal('ok') }) }),
);
