import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type ValidatorFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
interface RoutePart {
  httpPart?: string;
}
type Compile = (route: RoutePart) => unknown;
interface FormatAjv {
  formats: Record<string, unknown>;
  addFormat(name: string, format: { type: 'string'; validate: (text: string) => boolean }): unknown;
}
interface CompilerOptions {
  customOptions?: object;
  onCreate?: (ajv: FormatAjv) => void;
}
type BuildFromPool = (externalSchemas: unknown, options: CompilerOptions) => Compile;

/**
 * `utc-minute`: a browser's datetime-local value (`YYYY-MM-DDTHH:MM`), read as UTC, that names a
 * real minute: `2026-02-30T25:61` matches the shape but is refused. The console's time fields.
 */
export const UTC_MINUTE = 'utc-minute';

/** Epoch ms of a `utc-minute` value, or undefined when it names no real minute. */
export function utcMinuteMs(text: string): number | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text)?.slice(1).map(Number);
  if (!parts) return undefined;
  const [year, month, day, hour, minute] = parts as [number, number, number, number, number];
  const at = Date.UTC(year, month - 1, day, hour, minute);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 16) === text ? at : undefined;
}

/**
 * Adds `utc-minute`, and makes `date-time` what ajv-formats checks (RFC 3339: a real day of its
 * month, hours below 24) and also a time JavaScript can represent: RFC 3339 allows a leap second
 * (`23:59:60Z`), which Date.parse reads as NaN, and a NaN handed on to storage was a 500 on PostgreSQL.
 */
function addTimeFormats(ajv: FormatAjv): void {
  ajv.addFormat(UTC_MINUTE, { type: 'string', validate: (text) => utcMinuteMs(text) !== undefined });
  const rfc3339 = ajv.formats['date-time'] as
    ((text: string) => boolean) | { validate: (text: string) => boolean };
  const check = typeof rfc3339 === 'function' ? rfc3339 : rfc3339.validate;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text) => check(text) && Number.isFinite(Date.parse(text)),
  });
}

const buildCompiler = AjvCompiler() as unknown as BuildFromPool;

/**
 * Fastify's validator factory, split by request part: query strings, path parameters and headers
 * arrive as text and are coerced to the schema's types (`limit=10` is a number), while JSON bodies
 * are validated exactly as sent (`"ttlSeconds": "60"` or `"subject": 0` is a 400 naming the field).
 */
function validatorsByPart(externalSchemas: unknown, given: CompilerOptions = {}): Compile {
  const options: CompilerOptions = {
    ...given,
    onCreate: (ajv) => {
      given.onCreate?.(ajv);
      addTimeFormats(ajv);
    },
  };
  const coercing = buildCompiler(externalSchemas, options);
  const exact = buildCompiler(externalSchemas, {
    ...options,
    customOptions: { ...options.customOptions, coerceTypes: false },
  });
  return (route) => (route.httpPart === 'body' ? exact(route) : coercing(route));
}

export const buildValidatorsByPart = validatorsByPart as unknown as ValidatorFactory;
