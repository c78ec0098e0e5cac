import type { ServiceKey } from '#contract';
import { cosignCheckpoint } from '../log/cosignature.js';
import { openCheckpoint, type OpenedCheckpoint } from '../log/open-checkpoint.js';
import { SIG_TYPE_COSIGNATURE_V1, noteKeyId } from '../log/signed-note.js';
import { verifyConsistency } from '../log/verify-proofs.js';
import type { WitnessKey } from './witness-key.js';
import { readWitnessState, writeWitnessFile } from './witness-state.js';

export interface WitnessOptions {
  /** The service's base URL, e.g. https://presence.example.com */
  url: string;
  apiKey: string;
  stateDir: string;
  key: WitnessKey;
  /** Log keys to trust; otherwise the ones pinned in the state, or keys.json's on first use. */
  logKeys?: Buffer[] | undefined;
  /** Unix seconds, for the cosignature timestamp. */
  now?: () => number;
}

export type WitnessOutcome =
  | { status: 'empty' }
  | { status: 'cosigned' | 'unchanged'; origin: string; treeSize: number; previousSize: number | null }
  | { status: 'inconsistent'; reason: string };

/** The service answered something a witness cannot work with (not a consistency failure). */
export class WitnessError extends Error {}

/**
 * One round of a witness: fetch the tenant's newest checkpoint, check it is signed by the trusted
 * log key, check it extends the last checkpoint this witness saw (same origin, no smaller size,
 * same root at the same size, and an RFC 9162 consistency proof otherwise), then cosign it
 * (C2SP tlog-cosignature), post the cosignature, and remember the checkpoint. Any failed
 * consistency check returns `inconsistent` and leaves the state as it was: the evidence stays.
 */
export async function witnessOnce(options: WitnessOptions): Promise<WitnessOutcome> {
  const state = readWitnessState(options.stateDir);
  const logKeys = await trustedLogKeys(options, state.logKeys);
  const served = await call(options, 'GET', '/v1/presence/log/checkpoint');
  if (served.status === 404) return { status: 'empty' };
  const text = await expectOk(served, 'GET the checkpoint');
  let current: OpenedCheckpoint;
  try {
    current = openCheckpoint(text, logKeys);
  } catch (error) {
    return {
      status: 'inconsistent',
      reason: `the served checkpoint does not verify: ${(error as Error).message}`,
    };
  }
  const previous = state.checkpoint === undefined ? undefined : openCheckpoint(state.checkpoint, logKeys);
  const problem = previous && (await checkExtends(options, previous, current));
  if (problem) return { status: 'inconsistent', reason: problem };
  const alreadyCosigned =
    previous?.treeSize === current.treeSize &&
    current.note.signatures.some(
      (s) =>
        s.name === options.key.name &&
        s.keyId.equals(noteKeyId(options.key.name, SIG_TYPE_COSIGNATURE_V1, options.key.rawPublicKey)),
    );
  if (!alreadyCosigned) {
    const timestamp = options.now?.() ?? Math.floor(Date.now() / 1000);
    const cosignature = cosignCheckpoint(current.body, options.key, timestamp);
    const posted = await call(options, 'POST', '/v1/presence/log/cosignatures', {
      checkpoint: current.body,
      cosignature,
      witnessKey: options.key.vkey,
    });
    await expectOk(posted, 'POST the cosignature');
  }
  writeWitnessFile(options.stateDir, 'checkpoint', text);
  return {
    status: alreadyCosigned ? 'unchanged' : 'cosigned',
    origin: current.origin,
    treeSize: current.treeSize,
    previousSize: previous?.treeSize ?? null,
  };
}

/** Undefined when `current` extends `previous`; otherwise what is wrong, for the INCONSISTENT report. */
async function checkExtends(
  options: WitnessOptions,
  previous: OpenedCheckpoint,
  current: OpenedCheckpoint,
): Promise<string | undefined> {
  if (previous.origin !== current.origin)
    return `the log's origin changed from ${previous.origin} to ${current.origin}`;
  if (current.treeSize < previous.treeSize)
    return `the log shrank from ${previous.treeSize} to ${current.treeSize} leaves: history was removed`;
  if (current.treeSize === previous.treeSize) {
    return previous.rootHash.equals(current.rootHash)
      ? undefined
      : `two different roots for ${current.treeSize} leaves (${previous.rootHash.toString('base64')} seen, ${current.rootHash.toString('base64')} now): a fork`;
  }
  const res = await call(
    options,
    'GET',
    `/v1/presence/log/proof/consistency?from=${previous.treeSize}&to=${current.treeSize}`,
  );
  if (!res.ok)
    return `the service gives no consistency proof from ${previous.treeSize} to ${current.treeSize} (HTTP ${res.status})`;
  try {
    const proof = (await res.json()) as { hashes: string[] };
    const hashes = proof.hashes.map((h) => Buffer.from(h, 'base64'));
    verifyConsistency(previous.treeSize, current.treeSize, hashes, previous.rootHash, current.rootHash);
    return undefined;
  } catch (error) {
    return `the checkpoint of ${current.treeSize} leaves does not extend the one of ${previous.treeSize} seen before: ${(error as Error).message}`;
  }
}

async function trustedLogKeys(options: WitnessOptions, pinned: Buffer[]): Promise<Buffer[]> {
  if (options.logKeys && options.logKeys.length > 0) return options.logKeys;
  if (pinned.length > 0) return pinned;
  const res = await call(options, 'GET', '/.well-known/presence/keys.json');
  const keys = (JSON.parse(await expectOk(res, 'GET keys.json')) as { keys: ServiceKey[] }).keys
    .filter((k) => k.use === 'log')
    .map((k) => Buffer.from(k.publicKeyB64Url, 'base64url'));
  if (keys.length === 0) throw new WitnessError('keys.json lists no log key (use: "log")');
  writeWitnessFile(options.stateDir, 'log-keys', keys.map((k) => `${k.toString('base64')}\n`).join(''));
  return keys;
}

function call(
  options: WitnessOptions,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(new URL(path, options.url), {
    method,
    headers: {
      authorization: `Bearer ${options.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function expectOk(res: Response, what: string): Promise<string> {
  const text = await res.text();
  if (!res.ok) throw new WitnessError(`${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return text;
}
