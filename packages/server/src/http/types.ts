import type { Scope } from '@presence/contract';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../domain/deps.js';
import type { IdempotentExecution } from '../domain/idempotency/start-idempotent-execution.js';
import type { RouteEntry } from './route-table.js';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Who is calling: set by the auth plugin on every route that names a scope. */
export interface AuthContext {
  tenantId: string;
  keyId: string;
  scopes: readonly Scope[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on the app, with its scope (http/route-table.ts). */
    routeTable: readonly RouteEntry[];
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The domain's dependencies for this request (request-scoped on idempotent routes). */
    deps: Deps;
    /** Set while an Idempotency-Key request runs (plugins/idempotency.ts). */
    idempotency: IdempotentExecution | null;
  }
  interface FastifyContextConfig {
    /** The scope a route requires; routes without one are public. */
    scope?: Scope;
    /**
     * The route creates something and honours Idempotency-Key: its handler must use
     * `request.deps` and commit its change in one store.transaction.
     */
    idempotent?: boolean;
    /** An anonymous route counted per client address against this limit (http/plugins/rate-limit.ts). */
    addressLimit?: 'sign-in';
  }
}

/** The caller's tenant on a route that requires a scope (the auth plugin guarantees it). */
export function tenantOf(request: { auth: AuthContext | null }): string {
  if (!request.auth) throw new Error('route has no scope but reads the tenant');
  return request.auth.tenantId;
}

/** The scopes of the calling key (what it may grant to keys it creates or rotates). */
export function scopesOf(request: { auth: AuthContext | null }): readonly Scope[] {
  if (!request.auth) throw new Error('route has no scope but reads the caller');
  return request.auth.scopes;
}
