import type { Deps } from '../deps.js';
import { UniqueViolation, type Store, type StoreTx } from '../ports.js';
import { IDEMPOTENCY_TTL_MS } from './delete-expired-idempotency-keys.js';
import {
  readIdempotentOutcome,
  sealResponse,
  type IdempotentRequest,
  type KnownOutcome,
  type StoredResponse,
} from './read-idempotent-outcome.js';

/** How long the business transaction may wait for the response it will store. */
const HOLD_TIMEOUT_MS = 10_000;

/** Thrown out of `store.transaction` when another request already committed this key. */
export class IdempotencyKeyTaken extends Error {
  constructor(options?: { cause?: unknown }) {
    super('the Idempotency-Key was committed by another request', options);
    this.name = 'IdempotencyKeyTaken';
  }
}

export type FinishOutcome =
  /** This response is now the key's outcome (committed with the change, if any). */
  | { kind: 'stored' }
  /** A 5xx, 408, 409, 425 or 429: nothing of this request committed; a retry runs it again. */
  | { kind: 'not-stored' }
  /** The change did not commit after all (the held transaction failed): answer 5xx. */
  | { kind: 'failed'; error: unknown }
  | KnownOutcome;

type ExecutionDeps = Pick<Deps, 'store' | 'clock' | 'secrets'>;

export interface IdempotentExecution<D extends ExecutionDeps = Deps> {
  /** The request's dependencies: `store.transaction` also writes the key, atomically. */
  deps: D;
  /** Called with the serialized response once it is known; decides what the client gets. */
  finish(response: StoredResponse): Promise<FinishOutcome>;
}

/**
 * Runs one request under an Idempotency-Key. The first `store.transaction` of the request inserts
 * the key before the domain's writes and, once the domain has returned and the HTTP response is
 * serialized, stores that response in the same transaction before it commits. So the change and
 * the response it produced commit together or not at all: a retry either replays the response or
 * finds nothing and runs again. A concurrent duplicate blocks on the key's primary key (SQLite:
 * on the write lock) and, once the first commits, gets IdempotencyKeyTaken and replays.
 * Store use after the domain's transaction returned runs inside it (see requestStore); a second
 * `store.transaction` is refused. Writes outside `store.transaction` are not covered: an idempotent
 * route makes its changes inside its one transaction.
 */
export function startIdempotentExecution<D extends ExecutionDeps>(
  deps: D,
  request: IdempotentRequest,
): IdempotentExecution<D> {
  let state: 'idle' | 'running' | 'holding' | 'committed' | 'rolled-back' = 'idle';
  let handedOut = false;
  let deliver: (response: StoredResponse | undefined) => void = () => undefined;
  let held: Promise<void> = Promise.resolve();
  let heldError: unknown;
  let heldTx: StoreTx | undefined;

  const transaction = <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> => {
    if (state !== 'idle') {
      return Promise.reject(
        new Error('an idempotent request must commit its change in one store.transaction'),
      );
    }
    state = 'running';
    const responded = new Promise<StoredResponse | undefined>((resolve) => (deliver = resolve));
    return new Promise<T>((resolveResult, rejectResult) => {
      held = deps.store
        .transaction(async (tx) => {
          await insertKey(tx, keyRow(deps, request, null));
          const result = await fn(tx);
          heldTx = tx;
          state = 'holding';
          handedOut = true;
          resolveResult(result);
          const response = await withTimeout(responded, HOLD_TIMEOUT_MS);
          if (response === undefined) throw new Error('the request ended without a storable response');
          const sealed = sealResponse(deps, request, response);
          await tx.idempotency.saveResponse(request.tenantId, request.key, response.statusCode, sealed);
        })
        .then(
          () => void (state = 'committed'),
          (error: unknown) => {
            state = 'rolled-back';
            if (handedOut) heldError = error;
            else rejectResult(error);
          },
        );
    });
  };

  return {
    deps: {
      ...deps,
      store: requestStore(deps.store, transaction, () => (state === 'holding' ? heldTx : undefined)),
    },
    async finish(response) {
      const storable = isStorable(response.statusCode);
      if (state === 'running' || state === 'holding' || handedOut) {
        deliver(storable ? response : undefined);
        await held;
        if (!storable) return { kind: 'not-stored' };
        return state === 'committed' ? { kind: 'stored' } : { kind: 'failed', error: heldError };
      }
      return storable ? recordAlone(deps, request, response) : { kind: 'not-stored' };
    },
  };
}

/** Statuses that tell the client to retry later (RFC 9110): they are never stored, nor committed. */
const RETRY_LATER = new Set([408, 409, 425, 429]);

/** 2xx and definitive 4xx outcomes are stored; 5xx and retry-later ones leave no trace. */
function isStorable(statusCode: number): boolean {
  return statusCode < 500 && !RETRY_LATER.has(statusCode);
}

/**
 * No transaction of this request committed (a refusal, or an answer that changed nothing): the
 * outcome is recorded on its own. If another request with the key committed first, its outcome wins.
 */
async function recordAlone(deps: ExecutionDeps, request: IdempotentRequest, response: StoredResponse) {
  const sealed = sealResponse(deps, request, response);
  try {
    await deps.store.transaction((tx) => insertKey(tx, keyRow(deps, request, { response, sealed })));
    return { kind: 'stored' } as const;
  } catch (error) {
    if (!(error instanceof IdempotencyKeyTaken)) throw error;
    return (await readIdempotentOutcome(deps, request)) ?? { kind: 'in-progress' };
  }
}

async function insertKey(tx: StoreTx, row: Parameters<StoreTx['idempotency']['insert']>[0]) {
  try {
    await tx.idempotency.insert(row);
  } catch (error) {
    if (error instanceof UniqueViolation) throw new IdempotencyKeyTaken({ cause: error });
    throw error;
  }
}

function keyRow(
  deps: Pick<Deps, 'clock'>,
  request: IdempotentRequest,
  stored: { response: StoredResponse; sealed: string } | null,
) {
  const now = deps.clock.now();
  return {
    tenantId: request.tenantId,
    key: request.key,
    fingerprintHex: request.fingerprintHex,
    method: request.method,
    route: request.route,
    statusCode: stored?.response.statusCode ?? null,
    responseSealed: stored?.sealed ?? null,
    createdAt: now,
    expiresAt: now + IDEMPOTENCY_TTL_MS,
  };
}

/**
 * The base store with `transaction` replaced. While the transaction waits for the response, the
 * repos are those of that transaction: reads the domain makes after it see its own writes (and on
 * SQLite do not wait for the one connection the transaction holds), and writes join it.
 */
function requestStore(
  base: Store,
  transaction: Store['transaction'],
  held: () => StoreTx | undefined,
): Store {
  return new Proxy(base, {
    get(target, property, receiver) {
      // Both kinds of write run in the request's one transaction, with its key.
      if (property === 'transaction' || property === 'selfContainedWrites') return transaction;
      const tx = held();
      if (tx !== undefined && property in tx) return tx[property as keyof StoreTx];
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
