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
 * `date-time` as ajv-formats checks it (RFC 3339: a real day of its month, hours below 24), and
 * also a time JavaScript can represent: RFC 3339 allows a leap second (`23:59:60Z`), which
 * Date.parse reads as NaN, and a NaN handed on to storage was a 500 on PostgreSQL.
 */
function representableDateTime(ajv: FormatAjv): void {
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
      representableDateTime(ajv);
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
