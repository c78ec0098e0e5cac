import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { API_TAGS, finishOpenApiDocument } from './finish-openapi-document.js';
import { operationIdOf } from './operation-ids.js';

export const API_INFO = {
  title: 'Presence API',
  version: '1.0.0',
  description:
    'Proof that a verified human approved one exact action: action-bound WebAuthn challenges, single-use decisions and offline-verifiable signed receipts.',
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
};

/**
 * How the OpenAPI document is produced from the route schemas: named components (a schema's
 * `$id`), an operationId for every route, `security: []` on the public ones, then
 * finishOpenApiDocument.
 */
/** A route's top-level schema keeps its `$id` as `title`, so finishOpenApiDocument can name it. */
function titled(schema: unknown): unknown {
  const id = (schema as { $id?: unknown } | null | undefined)?.$id;
  return typeof id === 'string' ? { ...(schema as object), title: id } : schema;
}

export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: API_INFO,
    servers: [
      {
        url: '{origin}',
        description: 'your deployment; the default is the development service of `npm start`',
        variables: { origin: { default: 'http://localhost:8080', description: 'scheme, host and port' } },
      },
    ],
    tags: API_TAGS,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: presence_… (older keys: prs_…)' },
        operatorToken: { type: 'http', scheme: 'bearer', description: 'PRESENCE_ADMIN_TOKEN (/admin/v1)' },
      },
    },
    security: [{ apiKey: [] }],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) =>
      typeof json.$id === 'string' ? json.$id : `def-${i}`,
  },
  transform: ({ schema, url, route }) => {
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    const scoped = typeof (route.config as { scope?: unknown } | undefined)?.scope === 'string';
    const explicit = (schema as { security?: unknown } | undefined)?.security !== undefined;
    const response = (schema as { response?: Record<string, unknown> } | undefined)?.response;
    return {
      schema: {
        ...schema,
        ...(schema?.body === undefined ? {} : { body: titled(schema.body) }),
        ...(response === undefined
          ? {}
          : { response: Object.fromEntries(Object.entries(response).map(([k, v]) => [k, titled(v)])) }),
        operationId: operationIdOf(method, url),
        ...(scoped || explicit ? {} : { security: [] }),
      },
      url,
    };
  },
  transformObject: (documentObject) =>
    finishOpenApiDocument(
      (documentObject as { openapiObject: Record<string, unknown> }).openapiObject,
    ) as never,
};
