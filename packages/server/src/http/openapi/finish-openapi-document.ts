import { Problem } from '@presence/contract';
import { OPERATION_EXAMPLES, PROBLEM_EXAMPLE } from './openapi-examples.js';
import { referenceNamed, webhooksSection } from './webhooks-section.js';

type Json = Record<string, unknown>;
interface Operation extends Json {
  operationId?: string;
  responses?: Record<string, { description?: string; content?: Record<string, Json> }>;
  requestBody?: { content?: Record<string, Json> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

const SUCCESS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: queued, done in the background',
  '204': 'Done; no content',
};
const ERROR_DESCRIPTION: Record<string, string> = {
  '4XX': 'The request was refused: a problem document whose code says why (invalid_request names the field)',
  '5XX': 'The service failed or is unavailable: a problem document (retry with backoff)',
};

export const API_TAGS = [
  { name: 'presence', description: 'Action-bound challenges and the one decision per challenge' },
  { name: 'credentials', description: 'Enrolling and revoking authenticators (WebAuthn credentials)' },
  { name: 'receipts', description: 'Signed receipts: read, check, list and export as signed packs' },
  { name: 'approvals', description: 'Approvals of one exact action by named approvers on the hosted page' },
  {
    name: 'approval pages',
    description:
      'The JSON of the hosted approval and enrollment pages: no API key, the link token is the credential',
  },
  { name: 'api keys', description: 'API keys of the tenant: created and rotated secrets are shown once' },
  { name: 'policy', description: "The tenant's verification policy, versioned" },
  { name: 'audit', description: 'Audit events: every change of configuration or access, by any door' },
  { name: 'billing', description: 'Metered usage and invoices' },
  { name: 'webhooks', description: 'Endpoints, deliveries and the events they receive' },
  { name: 'operator', description: 'Operator API (/admin/v1), with PRESENCE_ADMIN_TOKEN' },
  { name: 'operations', description: 'Liveness and readiness' },
  { name: 'sdk', description: 'The SDK (npm) and the Python executor guard (pip) of this service version' },
];

/**
 * The last pass over the generated document, so it is fit for code generators and linters:
 * every response described, errors as `application/problem+json` with the one Problem schema,
 * examples for the main flows, and the `webhooks` section (OpenAPI 3.1) from the contract.
 */
export function finishOpenApiDocument(document: Json): Json {
  const components = ((document.components as Json | undefined) ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  schemas.Problem = { title: 'Problem', ...referenceNamed(Problem, schemas), example: PROBLEM_EXAMPLE };
  for (const path of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = path[method] as Operation | undefined;
      if (operation) finishOperation(operation, schemas);
    }
  }
  const webhooks = webhooksSection(schemas);
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...document, components, webhooks };
}

/** A named (titled) top-level schema becomes a component, referenced from where it was inline. */
function hoist(media: Json | undefined, schemas: Json): void {
  const schema = media?.schema as Json | undefined;
  const title = schema?.title;
  if (!media || typeof title !== 'string' || schema?.$ref !== undefined) return;
  schemas[title] ??= schema;
  media.schema = { $ref: `#/components/schemas/${title}` };
}

function finishOperation(operation: Operation, schemas: Json): void {
  for (const media of Object.values(operation.requestBody?.content ?? {})) hoist(media, schemas);
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    for (const media of Object.values(response.content ?? {})) hoist(media, schemas);
    const error = ERROR_DESCRIPTION[status];
    if (error !== undefined) {
      response.description = error;
      response.content = { 'application/problem+json': { schema: PROBLEM_REF } };
    } else if (response.description === undefined || response.description === 'Default Response') {
      response.description = SUCCESS[status] ?? 'Success';
    }
  }
  const examples = OPERATION_EXAMPLES[operation.operationId ?? ''];
  if (examples?.request) {
    const media = operation.requestBody?.content?.['application/json'];
    if (media) media.examples = examples.request;
  }
  if (examples?.response) {
    const media = operation.responses?.[examples.response.status]?.content?.['application/json'];
    if (media) media.examples = examples.response.examples;
  }
}
