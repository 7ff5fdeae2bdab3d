import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The process logger. Redaction is belt and braces: no code path should hand it a secret, but an
 * Authorization header or a `secret` field that slips into a log object is censored anyway.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: [
          'authorization',
          'req.headers.authorization',
          '*.authorization',
          'secret',
          '*.secret',
          'password',
          '*.password',
          'api_key.secret',
        ],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination as never,
  );
}
