import { PresenceUsageError } from '../usage-error.js';
import { errorFromProblem, PresenceApiError, PresenceNetworkError } from './errors.js';

export interface TransportOptions {
  /** The API origin, optionally with a path prefix: `https://presence.example.com`. */
  baseUrl: string;
  /** `prs_…`; optional only for the public routes (`wellKnown.keys()`). */
  apiKey?: string | undefined;
  /** Defaults to `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Extra attempts after a network error, a timeout or a 5xx. Default 3; 0 turns retries off. */
  retries?: number | undefined;
  /** Per attempt, until the whole body is read (for exports: until the headers arrive). Default 30 s. */
  timeoutMs?: number | undefined;
  /** First backoff step; each retry waits a random time up to base · 2^attempt. Default 250 ms. */
  retryBaseDelayMs?: number | undefined;
  /** Ceiling of one backoff wait (also of a server's Retry-After). Default 8 s. */
  retryMaxDelayMs?: number | undefined;
}

export interface CallOptions {
  /** Aborts the call, including its retries and backoff waits. */
  signal?: AbortSignal | undefined;
}

export interface CreateOptions extends CallOptions {
  /**
   * The Idempotency-Key of this logical call. By default a fresh one is generated per call and
   * reused by its retries; pass your own (stored with your job) to stay idempotent across restarts.
   */
  idempotencyKey?: string | undefined;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: object | undefined;
  body?: unknown;
  /** Set for calls that create something: sent as Idempotency-Key on every attempt. */
  idempotencyKey?: string | undefined;
  /** Default `application/json, application/problem+json`. */
  accept?: string | undefined;
}

const TIMEOUT = Symbol('timeout');

/** An Idempotency-Key: 128 random bits, hex (WebCrypto: Node 20+, browsers, edge runtimes). */
export function newIdempotencyKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * HTTP with the retry rule of the SDK: network errors, timeouts and 5xx answers are retried
 * with exponential backoff and full jitter, nothing else is. Every request the client makes is
 * safe to repeat: reads and deletes by nature, creates because they carry an Idempotency-Key.
 */
export class HttpTransport {
  private readonly fetch: typeof globalThis.fetch;
  private readonly baseUrl: string;
  private readonly retries: number;
  private readonly timeoutMs: number;
  private readonly baseDelay: number;
  private readonly maxDelay: number;

  constructor(private readonly options: TransportOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const { baseUrl, apiKey } = (options ?? {}) as Partial<TransportOptions>;
    if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/.test(baseUrl))
      throw new PresenceUsageError(
        'createPresenceClient options.baseUrl',
        "the service's origin as a string, e.g. 'http://localhost:8080'",
        baseUrl,
      );
    if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === ''))
      throw new PresenceUsageError(
        'createPresenceClient options.apiKey',
        'an API key string (presence_…)',
        apiKey,
      );
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.retries = Math.max(0, options.retries ?? 3);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.baseDelay = options.retryBaseDelayMs ?? 250;
    this.maxDelay = options.retryMaxDelayMs ?? 8_000;
  }

  /** A JSON call: resolves with the parsed body (undefined for 204), throws PresenceApiError. */
  async json<T>(spec: RequestSpec, call: CallOptions = {}): Promise<T> {
    const { response, text } = await this.send(spec, call, true);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new PresenceApiError(
        {
          status: response.status,
          code: 'invalid_response',
          detail: 'the response body is not JSON',
          requestId: response.headers.get('x-request-id') ?? undefined,
        },
        { cause: error },
      );
    }
  }

  /** A streamed call: resolves once a 2xx response's headers arrived; the caller reads the body. */
  async stream(spec: RequestSpec, call: CallOptions = {}): Promise<Response> {
    return (await this.send(spec, call, false)).response;
  }

  private async send(spec: RequestSpec, call: CallOptions, readBody: boolean) {
    const url = this.url(spec);
    const init = this.init(spec);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.retries;
      let result: { response: Response; text: string };
      try {
        result = await this.attempt(url, init, call.signal, readBody);
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        const timedOut = error === TIMEOUT;
        if (last) {
          const detail = timedOut
            ? `no response within ${this.timeoutMs} ms`
            : `the request failed: ${(error as Error)?.message ?? String(error)}`;
          throw new PresenceNetworkError(timedOut ? 'timeout' : 'network_error', detail, attempt + 1, error);
        }
        await this.backoff(attempt, undefined, call.signal);
        continue;
      }
      const { response } = result;
      if (response.ok) return result;
      if (response.status < 500 || last)
        throw errorFromProblem(response.status, response.headers, result.text);
      await this.backoff(attempt, response.headers.get('retry-after'), call.signal);
    }
  }

  /** One attempt under the per-attempt timeout, linked to the caller's signal. */
  private async attempt(url: string, init: RequestInit, signal: AbortSignal | undefined, readBody: boolean) {
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) throw signal.reason;
    signal?.addEventListener('abort', forward, { once: true });
    const timer = setTimeout(() => controller.abort(TIMEOUT), this.timeoutMs);
    let streaming = false;
    try {
      const response = await this.fetch(url, { ...init, signal: controller.signal });
      // Error bodies are always read here, under the timeout; a 2xx stream is left to the caller,
      // still linked to its signal so that aborting stops the transfer.
      streaming = !readBody && response.ok;
      const text = streaming ? '' : await response.text();
      return { response, text };
    } catch (error) {
      throw controller.signal.reason === TIMEOUT ? TIMEOUT : error;
    } finally {
      clearTimeout(timer);
      if (!streaming) signal?.removeEventListener('abort', forward);
    }
  }

  private async backoff(attempt: number, retryAfter: string | null | undefined, signal?: AbortSignal) {
    const ceiling = Math.min(this.maxDelay, this.baseDelay * 2 ** attempt);
    const asked = retryAfterMs(retryAfter);
    const delay = Math.min(this.maxDelay, Math.max(Math.random() * ceiling, asked));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, delay);
      function done() {
        signal?.removeEventListener('abort', stop);
        resolve();
      }
      function stop() {
        clearTimeout(timer);
        reject(signal?.reason);
      }
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  private url(spec: RequestSpec): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {}) as [string, unknown][]) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, String(v));
    }
    const query = params.toString();
    return `${this.baseUrl}${spec.path}${query === '' ? '' : `?${query}`}`;
  }

  private init(spec: RequestSpec): RequestInit {
    const headers: Record<string, string> = {
      accept: spec.accept ?? 'application/json, application/problem+json',
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (spec.idempotencyKey !== undefined) headers['idempotency-key'] = spec.idempotencyKey;
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    return {
      method: spec.method,
      headers,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    };
  }
}

/** Retry-After in seconds or as an HTTP date; 0 when absent or unreadable. */
function retryAfterMs(value: string | null | undefined): number {
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, at - Date.now());
}
