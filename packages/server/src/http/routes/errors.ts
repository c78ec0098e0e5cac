import { Problem } from '@presence/contract';

/** Declared on every route so /openapi.json documents the problem+json envelope. */
export const problemResponses = { '4xx': Problem, '5xx': Problem } as const;
