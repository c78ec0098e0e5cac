import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
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

export type LogFormat = 'json' | 'pretty';

/**
 * `auto`: human-readable lines when stdout is a terminal outside production (a developer running
 * `npm start`), JSON otherwise (a container, a pipe, a log collector).
 */
export function chooseLogFormat(setting: string, production: boolean, isTty: boolean): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return !production && isTty ? 'pretty' : 'json';
}

/** pino-pretty as a synchronous stream in this thread: one line per entry, the same redaction. */
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  return pinoPretty({
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,req,res,reqId',
    messageKey: 'msg',
    singleLine: true,
    sync: true,
    ...(destination === undefined ? {} : { destination: destination as NodeJS.WritableStream }),
  });
}

/**
 * Structured JSON logs (or `pretty`: the same entries as readable lines, for a terminal). Request logs carry method, url, status and request id only; anything
 * that could hold a key, secret or assertion is redacted should it ever be attached, and so is
 * the value of any query parameter that looks like a credential (`?apiKey=…`, `?token=…`).
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
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
  if (format === 'pretty') return pino(options, prettyStream(destination));
  return destination === undefined ? pino(options) : pino(options, destination);
}
