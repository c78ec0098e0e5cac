import type { Metrics } from '../../observability/create-metrics.js';
import type { CursorCodec } from '../cursor.js';
import type { ConsoleOptions } from '../../domain/console/resolve-console-settings.js';
import type { LinkSettings } from '../../domain/approvals/create-approval.js';
import type { HttpRateLimits } from '../plugins/rate-limit.js';

/**
 * What route files receive at registration: only what is the same for every request. The domain's
 * dependencies are deliberately absent: a handler reaches them through `request.deps` and nowhere
 * else, because on an idempotent route `request.deps` is the request-scoped set whose store commits
 * the Idempotency-Key with the change (plugins/idempotency.ts). A handler that used dependencies
 * captured at registration would commit outside that transaction and lose crash safety; there is
 * no such object here to capture.
 */
export interface RouteDeps {
  cursors: CursorCodec;
  /** True once shutdown began (SIGTERM): readiness fails first, requests in flight still finish. */
  isDraining: () => boolean;
  /** Where routes record what the request metrics cannot see (decisions, export bytes). */
  metrics: Metrics;
  /** Console origin and lifetimes (operator-made invite links). */
  console: ConsoleOptions;
  /** The public origin of approval and enrollment links. */
  links: LinkSettings;
  /** The request limits (the keyless link routes add their own per-address window). */
  rateLimits: HttpRateLimits;
}
