/**
 * `createReceiptGuard`: the executor's gate (docs/executor-guards.md). Before it executes an action, the
 * executor reads the evidence from the request, recomputes the action hash from the very request
 * (the `action` function), checks the evidence offline against the service keys, the maximum age,
 * and single use, and answers 403 problem+json naming the failed check otherwise. Typed against
 * minimal request shapes, so the SDK depends on neither Express nor Fastify.
 */
import type { ServiceKey } from '#contract';
import { checkEvidence, type EvidenceReport } from './check-evidence.js';
import { fetchedKeys, pinnedKeys, type FetchedKeysOptions, type KeySource } from './key-source.js';
import { memorySeenStore, type SeenStore } from './seen-store.js';
import { readEvidence, type GuardRequest } from './read-evidence.js';

export interface ReceiptGuardOptions<Req extends GuardRequest> {
  /** Pinned keys (a saved keys.json, or its `keys`), a URL to fetch and cache, or your own source. */
  keys: readonly ServiceKey[] | { keys: readonly ServiceKey[] } | FetchedKeysOptions | KeySource;
  /** The action this request would execute, built from the request itself (never from the evidence). */
  action: (request: Req) => unknown;
  /** Refuse evidence issued (receipt) or decided (approval set) longer ago. */
  maxAgeSeconds?: number;
  /** Default: in-process memory. Use redisSeenStore when several processes execute. */
  seenStore?: SeenStore;
  /** How long accepted evidence is remembered. Default: maxAgeSeconds + 60, or 30 days. */
  seenTtlSeconds?: number;
  /** Request header carrying base64url(JSON evidence). Default `presence-evidence`. */
  header?: string;
  /** Body member carrying the evidence (object or JSON text). Default `presenceEvidence`. */
  bodyField?: string;
  now?: () => number;
}

export interface GuardProblem {
  type: string;
  title: string;
  status: 403;
  code: 'evidence_refused';
  /** The first failed check: `evidence` (none or unreadable), a verifier check, `action`, `maxAge` or `singleUse`. */
  check: string;
  detail: string;
  checks?: Record<string, { ok: boolean; detail: string }>;
}

export type GuardOutcome = { ok: true; report: EvidenceReport } | { ok: false; problem: GuardProblem };

interface NodeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}
interface FastifyReplyShape {
  code(status: number): FastifyReplyShape;
  header(name: string, value: string): FastifyReplyShape;
  send(body: string): unknown;
}

export interface ReceiptGuard<Req extends GuardRequest> {
  check(request: Req): Promise<GuardOutcome>;
  /** Express (and node:http) middleware; sets `request.presenceEvidence` to the report on success. */
  express(request: Req, response: NodeResponse, next: (error?: unknown) => void): void;
  /** Fastify `preHandler` hook; sets `request.presenceEvidence` to the report on success. */
  fastify(request: Req, reply: FastifyReplyShape): Promise<void>;
}

const PROBLEM_TYPE = 'https://presence.dev/problems/evidence_refused';

function refuse(check: string, detail: string, checks?: EvidenceReport['checks']): GuardOutcome {
  return {
    ok: false,
    problem: {
      type: PROBLEM_TYPE,
      title: 'Evidence refused',
      status: 403,
      code: 'evidence_refused',
      check,
      detail,
      ...(checks ? { checks } : {}),
    },
  };
}

function keySourceOf(keys: ReceiptGuardOptions<GuardRequest>['keys']): KeySource {
  if (typeof (keys as KeySource).keys === 'function') return keys as KeySource;
  if (typeof (keys as FetchedKeysOptions).url === 'string') return fetchedKeys(keys as FetchedKeysOptions);
  return pinnedKeys(keys as readonly ServiceKey[]);
}

export function createReceiptGuard<Req extends GuardRequest>(
  options: ReceiptGuardOptions<Req>,
): ReceiptGuard<Req> {
  const source = keySourceOf(options.keys as ReceiptGuardOptions<GuardRequest>['keys']);
  const store = options.seenStore ?? memorySeenStore();
  const now = options.now ?? Date.now;
  const ttlSeconds =
    options.seenTtlSeconds ??
    (options.maxAgeSeconds === undefined ? 30 * 86_400 : options.maxAgeSeconds + 60);

  async function check(request: Req): Promise<GuardOutcome> {
    const read = readEvidence(
      request,
      options.header ?? 'presence-evidence',
      options.bodyField ?? 'presenceEvidence',
    );
    if (!read.ok) return refuse('evidence', read.detail);
    let keys: readonly ServiceKey[];
    try {
      keys = await source.keys(read.kid);
    } catch (error) {
      return refuse(
        'serviceSignature',
        `the service keys could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const report = checkEvidence(read.evidence, {
      keys,
      action: await options.action(request),
      maxAgeSeconds: options.maxAgeSeconds,
      now: now(),
    });
    const failed = Object.entries(report.checks).find(([, c]) => !c.ok);
    if (failed) return refuse(failed[0], failed[1].detail, report.checks);
    const claimed = await store.claim(`${report.kind}:${report.hashHex}`, ttlSeconds * 1000);
    if (!claimed)
      return refuse(
        'singleUse',
        `this ${report.kind === 'receipt' ? 'receipt' : 'approval set'} (${report.id}) was presented before`,
        report.checks,
      );
    return { ok: true, report };
  }

  const body = (problem: GuardProblem) => JSON.stringify(problem);
  return {
    check,
    express(request, response, next) {
      check(request).then(
        (outcome) => {
          if (outcome.ok) {
            (request as Req & { presenceEvidence?: EvidenceReport }).presenceEvidence = outcome.report;
            next();
            return;
          }
          response.statusCode = 403;
          response.setHeader('content-type', 'application/problem+json');
          response.end(body(outcome.problem));
        },
        (error: unknown) => next(error),
      );
    },
    async fastify(request, reply) {
      const outcome = await check(request);
      if (outcome.ok) {
        (request as Req & { presenceEvidence?: EvidenceReport }).presenceEvidence = outcome.report;
        return;
      }
      await reply.code(403).header('content-type', 'application/problem+json').send(body(outcome.problem));
    },
  };
}
