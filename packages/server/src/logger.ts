import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs. Request logs carry method, url, status and request id only; anything
 * that could hold a key, secret or assertion is redacted should it ever be attached.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'apiKey',
        'secret',
        'assertion',
        'credential',
        'body',
        '*.apiKey',
        '*.secret',
        '*.assertion',
        '*.body',
      ],
      censor: '[redacted]',
    },
  });
}
