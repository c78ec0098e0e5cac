import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redactUrl } from './redact-url.js';

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with credential-looking query parameters redacted from the URL. */
export function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url ?? ''),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * Structured JSON logs. Request logs carry method, url, status and request id only; anything
 * that could hold a key, secret or assertion is redacted should it ever be attached, and so is
 * the value of any query parameter that looks like a credential (`?apiKey=…`, `?token=…`).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    serializers: { req: serializeRequest },
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
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
