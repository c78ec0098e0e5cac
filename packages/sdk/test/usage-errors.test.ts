/**
 * The shapes people have at hand work, and every wrong argument is a PresenceUsageError (a
 * TypeError) that names the argument and says what to pass: never a raw TypeError from inside.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  computeActionHashSync,
  createPresenceClient,
  PresenceUsageError,
  verifyPack,
  verifyReceipt,
  verifyWebhook,
} from '../src/node.js';

const FIXTURES = new URL('./fixtures/receipt-v1/', import.meta.url);
const signed = JSON.parse(readFileSync(new URL('signed-receipt.json', FIXTURES), 'utf8'));
/** keys.json exactly as /.well-known/presence/keys.json serves it: `{ keys: [...] }`. */
const keySet = JSON.parse(readFileSync(new URL('keys.json', FIXTURES), 'utf8'));
const pack = readFileSync(new URL('pack.zip', FIXTURES));

function usageError(run: () => unknown): PresenceUsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PresenceUsageError);
    expect(error).toBeInstanceOf(TypeError);
    return error as PresenceUsageError;
  }
  throw new Error('expected a PresenceUsageError');
}

describe('the SDK with the shapes people have at hand', () => {
  it('verifies a receipt with keys.json as served, or with its keys array', () => {
    expect(verifyReceipt(signed, { keys: keySet }).valid).toBe(true);
    expect(verifyReceipt(signed, { keys: keySet.keys }).valid).toBe(true);
  });

  it('verifies a pack with keys.json as served', async () => {
    expect((await verifyPack(pack, { keys: keySet })).valid).toBe(true);
  });
});

describe('usage errors say what to pass', () => {
  it('verifyReceipt without usable keys', () => {
    for (const keys of [undefined, 'keys.json', { kid: 'x' }, [{ nope: true }], { keys: 'x' }]) {
      const error = usageError(() => verifyReceipt(signed, { keys } as never));
      expect(error.code).toBe('invalid_argument');
      expect(error.argument).toBe('verifyReceipt options.keys');
      expect(error.message).toMatch(/keys\.json as served \(\{ keys: \[\.\.\.\] \}\) or its keys array/);
    }
  });

  it('verifyPack with keys of the wrong shape', async () => {
    await expect(verifyPack(pack, { keys: 'keys.json' as never })).rejects.toThrow(PresenceUsageError);
  });

  it('verifyWebhook with a parsed body', () => {
    const error = usageError(() =>
      verifyWebhook({ rawBody: { id: 'evt_1' } as never, headers: {}, secret: 'whsec_x' } as never),
    );
    expect(error.argument).toBe('rawBody');
    expect(error.message).toContain('got an object with id');
  });

  it('an action JSON cannot carry', () => {
    const error = usageError(() => computeActionHashSync({ amount: Number.NaN }));
    expect(error.message).toMatch(/^the action: pass a JSON value/);
    expect(() => canonicalJson({ amount: 10n })).toThrow(PresenceUsageError);
  });

  it('a client without a base URL, or with an empty API key', () => {
    expect(usageError(() => createPresenceClient({} as never)).argument).toBe(
      'createPresenceClient options.baseUrl',
    );
    expect(usageError(() => createPresenceClient({ baseUrl: 'localhost:8080' })).message).toContain(
      "e.g. 'http://localhost:8080'",
    );
    expect(
      usageError(() => createPresenceClient({ baseUrl: 'http://localhost:8080', apiKey: '' })).argument,
    ).toBe('createPresenceClient options.apiKey');
  });
});
