import type { Deps } from '../../domain/deps.js';
import type { Metrics } from '../../observability/create-metrics.js';
import type { CursorCodec } from '../cursor.js';
import type { ConsoleOptions } from '../../domain/console/resolve-console-settings.js';

/** What route files receive: the domain's dependencies and the cursor codec. */
export interface RouteDeps {
  deps: Deps;
  cursors: CursorCodec;
  /** Where routes record what the request metrics cannot see (decisions, export bytes). */
  metrics: Metrics;
  /** Console origin and lifetimes (operator-made invite links). */
  console: ConsoleOptions;
}
