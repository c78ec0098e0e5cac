import type { ServiceKey } from '#contract';

/** How a wrong argument looks, in a few words (never its content: it may be a secret). */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (typeof value === 'object') {
    const keys = Object.keys(value).slice(0, 5);
    return keys.length === 0 ? 'an empty object' : `an object with ${keys.join(', ')}`;
  }
  return typeof value;
}

/**
 * A call of the SDK with an argument it cannot use: which argument, what to pass instead and
 * what came. A TypeError, so `instanceof TypeError` keeps working; `code` is always
 * `invalid_argument`. Failures of the service are PresenceApiError; failed checks of evidence are
 * reports (`valid: false`), never exceptions.
 */
export class PresenceUsageError extends TypeError {
  readonly code = 'invalid_argument' as const;
  /** The argument, as you wrote it: `options.keys`, `rawBody`. */
  readonly argument: string;
  /** What to pass instead. */
  readonly expected: string;

  constructor(argument: string, expected: string, received: unknown) {
    super(`${argument}: pass ${expected} (got ${describeValue(received)})`);
    this.name = 'PresenceUsageError';
    this.argument = argument;
    this.expected = expected;
  }
}

const KEYS_EXPECTED =
  "the service's keys: the JSON of /.well-known/presence/keys.json as served ({ keys: [...] }) or its keys array";

function isServiceKey(value: unknown): value is ServiceKey {
  const key = value as Partial<ServiceKey> | null;
  return (
    typeof key === 'object' &&
    key !== null &&
    typeof key.kid === 'string' &&
    typeof key.publicKeyB64Url === 'string'
  );
}

/**
 * The service keys an option names, in either shape people have at hand: keys.json as served
 * (`{ keys: [...] }`) or its array. Anything else is a PresenceUsageError saying so.
 */
export function serviceKeysOf(
  value: readonly ServiceKey[] | { keys: readonly ServiceKey[] } | undefined,
  argument: string,
): readonly ServiceKey[] {
  const list: unknown = Array.isArray(value) ? value : (value as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(list) || !list.every(isServiceKey))
    throw new PresenceUsageError(argument, KEYS_EXPECTED, value);
  return list as readonly ServiceKey[];
}
