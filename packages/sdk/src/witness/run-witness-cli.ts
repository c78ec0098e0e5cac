import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createPublicKey } from 'node:crypto';
import { loadOrCreateWitnessKey } from './witness-key.js';
import { witnessOnce, WitnessError, type WitnessOutcome } from './witness-once.js';

export const WITNESS_USAGE = `Usage: presence-witness --url URL --state DIR --key witness.key [options]
  --url       the Presence service, e.g. https://presence.example.com (API key in PRESENCE_API_KEY,
              scope receipts:read)
  --state     directory for the last checkpoint seen and the pinned log keys
  --key       the witness's Ed25519 key file; created (mode 0600) with <key>.pub beside it if absent
  --name      the witness name for a new key (default presence-witness/<hostname>)
  --log-key   the service's log public key (PEM); default: pinned from keys.json on first use
  --once      check and cosign once, then exit (default: follow the log)
  --interval  seconds between checks when following (default 10)
Exit status: 0 while consistent, 1 with an INCONSISTENT report on a fork, rewrite or shrink,
2 on a usage or service error.
`;

/** `presence-witness`: follows a tenant's receipt log, cosigning every consistent checkpoint. */
export async function runWitnessCli(
  args: string[],
  env: Record<string, string | undefined>,
  out: (text: string) => void,
): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        state: { type: 'string' },
        key: { type: 'string' },
        name: { type: 'string' },
        'log-key': { type: 'string', multiple: true },
        once: { type: 'boolean' },
        interval: { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    out(`${(error as Error).message}\n${WITNESS_USAGE}`);
    return 2;
  }
  const apiKey = env['PRESENCE_API_KEY'];
  const interval = Number(values.interval ?? '10');
  if (values.help || !values.url || !values.state || !values.key || !apiKey || !(interval > 0)) {
    out(values.help ? WITNESS_USAGE : `${apiKey ? '' : 'PRESENCE_API_KEY is not set\n'}${WITNESS_USAGE}`);
    return values.help ? 0 : 2;
  }
  const { key, created } = loadOrCreateWitnessKey(
    values.key,
    values.name ?? `presence-witness/${hostname()}`,
  );
  if (created)
    out(`created witness key ${values.key}; its verifier key (also in ${values.key}.pub):\n${key.vkey}\n`);
  const logKeys = (values['log-key'] ?? []).map((path) =>
    Buffer.from(createPublicKey(readFileSync(path, 'utf8')).export({ format: 'jwk' }).x ?? '', 'base64url'),
  );
  for (;;) {
    let outcome: WitnessOutcome;
    try {
      outcome = await witnessOnce({ url: values.url, apiKey, stateDir: values.state, key, logKeys });
    } catch (error) {
      out(`presence-witness: ${error instanceof WitnessError ? '' : 'error: '}${(error as Error).message}\n`);
      if (values.once) return 2;
      await sleep(interval * 1000);
      continue;
    }
    out(`${describe(outcome)}\n`);
    if (outcome.status === 'inconsistent') return 1;
    if (values.once) return 0;
    await sleep(interval * 1000);
  }
}

function describe(o: WitnessOutcome): string {
  switch (o.status) {
    case 'empty':
      return 'OK the log is empty: nothing to cosign yet';
    case 'inconsistent':
      return `INCONSISTENT ${o.reason}`;
    default:
      return `OK ${o.origin} ${o.treeSize} leaves${o.previousSize === null ? ' (first checkpoint seen)' : ` consistent with ${o.previousSize}`}${o.status === 'cosigned' ? ', cosigned' : ', already cosigned'}`;
  }
}
