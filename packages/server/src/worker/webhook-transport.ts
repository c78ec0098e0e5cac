/**
 * The network side of webhooks: undici POSTs pinned to the checked address, with a connect
 * timeout, a total timeout, no redirects (undici's request() follows none) and at most 4 KiB of
 * the response kept. Connections are pooled per (origin, checked address), so keep-alive never
 * reaches an address that was not checked.
 */
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { createAddressPolicy } from '../domain/webhooks/address-policy.js';
import {
  TargetRefused,
  type AttemptResponse,
  type CheckedTarget,
  type WebhookTransport,
} from '../domain/webhooks/ports.js';
import { resolveWebhookTarget } from './resolve-webhook-target.js';

export interface WebhookTransportOptions {
  /** CIDRs that may be reached although private or reserved (PRESENCE_WEBHOOK_ALLOW_NETS). */
  allowNets: readonly string[];
  connectTimeoutMs: number;
  /** Whole attempt: DNS, connect, request, response head and captured body. */
  timeoutMs: number;
  maxResponseBytes?: number;
}

const MAX_AGENTS = 256;

export function createWebhookTransport(options: WebhookTransportOptions): WebhookTransport {
  const policy = createAddressPolicy(options.allowNets);
  const agents = new Map<string, Agent>();
  const agentFor = (target: CheckedTarget): Agent => {
    const key = `${target.url.origin}|${target.address}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = new Agent({
        connect: { timeout: options.connectTimeoutMs, lookup: pinnedLookup(target) },
        keepAliveTimeout: 4000,
      });
      agents.set(key, agent);
      if (agents.size > MAX_AGENTS) evictOldest(agents);
    }
    return agent;
  };
  return {
    resolve: (url) => resolveWebhookTarget(policy, url, options.timeoutMs),
    async post(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const abort = AbortSignal.timeout(options.timeoutMs);
      try {
        const target = await resolveWebhookTarget(policy, url, options.timeoutMs);
        const res = await request(url, {
          method: 'POST',
          headers,
          body,
          dispatcher: agentFor(target),
          signal: abort,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        const snippet = await readCapped(res.body, options.maxResponseBytes ?? 4096);
        return {
          statusCode: res.statusCode,
          durationMs: elapsed(),
          error: null,
          responseSnippet: snippet,
          retryAfterMs: parseRetryAfter(res.headers['retry-after']),
        };
      } catch (error) {
        return failure(describe(error, abort.aborted, options.timeoutMs), elapsed());
      }
    },
    async close() {
      await Promise.allSettled([...agents.values()].map((a) => a.close()));
      agents.clear();
    },
  };
}

/** net.connect's lookup, answered with the checked address only. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, opts, callback) => {
    if (opts.all === true) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

function evictOldest(agents: Map<string, Agent>): void {
  const [key, agent] = agents.entries().next().value as [string, Agent];
  agents.delete(key);
  void agent.close().catch(() => undefined);
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function failure(error: string, durationMs: number): AttemptResponse {
  return { statusCode: null, durationMs, error, responseSnippet: null, retryAfterMs: null };
}

function describe(error: unknown, aborted: boolean, timeoutMs: number): string {
  if (error instanceof TargetRefused) return `refused: ${error.reason}`;
  if (aborted) return `timeout: no complete response within ${timeoutMs} ms`;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' ? `${code}: ${message}` : message).slice(0, 500);
}
