/**
 * Request limits, checked before any work is done for the request:
 * - per client address, for requests that fail authentication (401) or authorization (403) on any
 *   route (API keys, the operator token, the metrics token): an address that used up its window
 *   gets 429 before its credentials are even checked, so random bearer tokens cannot be sprayed
 *   for free;
 * - per API key and per tenant (all its keys together), right after authentication;
 * - per client address, every request to an anonymous route that makes the service store
 *   something (`config.addressLimit`: the console's sign-in), counted whatever its outcome.
 * Answers carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and
 * `RateLimit-Policy` (IETF httpapi-ratelimit-headers draft 7), plus `Retry-After` on a 429.
 * The windows live in Redis or in memory (rate-limit/create-rate-limiters.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../../observability/create-metrics.js';
import type { LimitDecision, RateLimiter } from '../../rate-limit/create-rate-limiters.js';
import type { App } from '../types.js';
import { sendProblem } from './problem.js';

export interface HttpRateLimits {
  perKey?: RateLimiter | undefined;
  perTenant?: RateLimiter | undefined;
  failedAuthPerAddress?: RateLimiter | undefined;
  signInPerAddress?: RateLimiter | undefined;
  /** All addresses together: what bounds the challenges anonymous callers can have stored. */
  signInTotal?: RateLimiter | undefined;
  /** Keyless link routes (`/approve/{token}/…`, `/enroll/{token}/…`), per client address. */
  linksPerAddress?: RateLimiter | undefined;
}

type Limited = Pick<Metrics, 'rateLimited'>;

/** Register BEFORE the auth plugin: refuses addresses that failed authentication too often. */
export function registerAddressLimit(app: App, limits: HttpRateLimits, metrics: Limited): void {
  const limiter = limits.failedAuthPerAddress;
  if (!limiter) return;
  app.addHook('onRequest', async (request, reply) => {
    if (!presentsCredentials(request)) return;
    const decision = await limiter.peek(request.ip);
    if (!decision.allowed) {
      return refuse(request, reply, decision, metrics, 'address', 'from this address failed authentication');
    }
  });
  // Counted before the refusal is sent, so the caller's next request already sees it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 || reply.statusCode === 403) await limiter.consume(request.ip);
    return payload;
  });
}

/**
 * Register before the portal: counts each request to a route marked `addressLimit` against its
 * client address's window, then (only if that allowed it) against the window of all addresses.
 */
export function registerAnonymousLimit(app: App, limits: HttpRateLimits, metrics: Limited): void {
  const { signInPerAddress, signInTotal } = limits;
  if (!signInPerAddress && !signInTotal) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.addressLimit !== 'sign-in') return;
    const address = await signInPerAddress?.consume(request.ip);
    if (address && !address.allowed) {
      return refuse(
        request,
        reply,
        address,
        metrics,
        'sign-in',
        'from this address to sign in to the console',
      );
    }
    const total = await signInTotal?.consume('console');
    if (total && !total.allowed) {
      return refuse(
        request,
        reply,
        total,
        metrics,
        'sign-in',
        'from all addresses to sign in to the console',
      );
    }
    setHeaders(reply, tightest(address, total));
  });
}

/**
 * Requests the address limit applies to: keyed routes, and any request sending credentials
 * (the operator API, a protected /metrics). Public reads without credentials are never blocked.
 */
function presentsCredentials(request: FastifyRequest): boolean {
  return request.routeOptions.config.scope !== undefined || request.headers.authorization !== undefined;
}

/** Register AFTER the auth plugin: counts the request against its key's and tenant's windows. */
export function registerKeyLimit(app: App, limits: HttpRateLimits, metrics: Limited): void {
  const { perKey, perTenant } = limits;
  if (!perKey && !perTenant) return;
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.auth;
    if (!auth) return;
    const [key, tenant] = await Promise.all([perKey?.consume(auth.keyId), perTenant?.consume(auth.tenantId)]);
    if (key && !key.allowed) {
      return refuse(request, reply, key, metrics, 'key', 'for this API key');
    }
    if (tenant && !tenant.allowed) {
      return refuse(request, reply, tenant, metrics, 'tenant', 'for this tenant (all its API keys)');
    }
    setHeaders(reply, tightest(key, tenant));
  });
}

/**
 * Register inside the keyless link routes' context: every request counts against its address's
 * window (the token in the path is the only credential, so guessing is limited per address too).
 */
export function registerLinkLimit(app: App, limits: HttpRateLimits, metrics: Limited): void {
  const limiter = limits.linksPerAddress;
  if (!limiter) return;
  app.addHook('onRequest', async (request, reply) => {
    const decision = await limiter.consume(request.ip);
    if (!decision.allowed) {
      return refuse(
        request,
        reply,
        decision,
        metrics,
        'address',
        'from this address to approval and enrollment links',
      );
    }
    setHeaders(reply, decision);
  });
}

function tightest(a: LimitDecision | undefined, b: LimitDecision | undefined): LimitDecision {
  if (!a) return b!;
  if (!b) return a;
  return b.remaining < a.remaining ? b : a;
}

function setHeaders(reply: FastifyReply, d: LimitDecision): void {
  reply.header('ratelimit-limit', String(d.limit));
  reply.header('ratelimit-remaining', String(d.remaining));
  reply.header('ratelimit-reset', String(d.resetSeconds));
  reply.header('ratelimit-policy', `${d.limit};w=60`);
}

function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  d: LimitDecision,
  metrics: Limited,
  limit: 'key' | 'tenant' | 'address' | 'sign-in',
  scope: string,
) {
  metrics.rateLimited.inc({ limit });
  setHeaders(reply, d);
  reply.header('retry-after', String(Math.max(1, d.resetSeconds)));
  return sendProblem(reply, request, 'rate_limited', `more than ${d.limit} requests in one minute ${scope}`);
}
