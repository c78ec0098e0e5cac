import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

type ValidatorFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;
interface RoutePart {
  httpPart?: string;
}
type Compile = (route: RoutePart) => unknown;
type BuildFromPool = (externalSchemas: unknown, options: { customOptions?: object }) => Compile;

const buildCompiler = AjvCompiler() as unknown as BuildFromPool;

/**
 * Fastify's validator factory, split by request part: query strings, path parameters and headers
 * arrive as text and are coerced to the schema's types (`limit=10` is a number), while JSON bodies
 * are validated exactly as sent (`"ttlSeconds": "60"` or `"subject": 0` is a 400 naming the field).
 */
function validatorsByPart(externalSchemas: unknown, options: { customOptions?: object } = {}): Compile {
  const coercing = buildCompiler(externalSchemas, options);
  const exact = buildCompiler(externalSchemas, {
    ...options,
    customOptions: { ...options.customOptions, coerceTypes: false },
  });
  return (route) => (route.httpPart === 'body' ? exact(route) : coercing(route));
}

export const buildValidatorsByPart = validatorsByPart as unknown as ValidatorFactory;
