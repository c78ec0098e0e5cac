import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ServiceKey } from '#contract';
import { formatPackReport } from './format-pack-report.js';
import { verifyPack } from './verify-pack.js';

export const VERIFY_PACK_USAGE = `Usage: presence-verify <pack.zip> [--key pub.pem]... [--keys keys.json] [--since checkpoint.txt [--url URL]]
  --key            an Ed25519 public key (PEM) you pinned; repeatable (one per key, old ones too)
  --keys           a saved copy of https://<service>/.well-known/presence/keys.json
                   (its "use": "log" entries are the receipt-log keys)
  --log-key        a receipt-log public key (PEM) you pinned; repeatable
  --since          a checkpoint you saved earlier: the pack's checkpoint must extend it
                   (export the pack with logSince=<its tree size>, or give --url)
  --url            the service origin: fetch the consistency proof from --since when the pack
                   lacks it (API key with receipts:read in PRESENCE_API_KEY); checked, not trusted
  --witness        a witness verifier key (name+id+base64) you trust; repeatable
  --min-witnesses  how many trusted witnesses must have cosigned the pack's checkpoint
At least one of --key and --keys is required: the keys inside the pack are never trusted on their own.
Exit status: 0 when every check passes, 1 when any fails, 2 on a usage error.
`;

/** `presence-verify` and `presence verify-pack`: prints a line per check and the verdict. */
export async function runVerifyPackCli(args: string[], out: (text: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        key: { type: 'string', multiple: true },
        keys: { type: 'string' },
        'log-key': { type: 'string', multiple: true },
        since: { type: 'string' },
        url: { type: 'string' },
        witness: { type: 'string', multiple: true },
        'min-witnesses': { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    out(`${(error as Error).message}\n${VERIFY_PACK_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [file] = positionals;
  if (values.help || !file || positionals.length > 1 || (!values.key && !values.keys)) {
    out(VERIFY_PACK_USAGE);
    return values.help ? 0 : 2;
  }
  const pinnedPublicKeyPem = (values.key ?? []).map((path) => readFileSync(path, 'utf8'));
  const keys = values.keys
    ? (JSON.parse(readFileSync(values.keys, 'utf8')) as { keys: ServiceKey[] }).keys
    : undefined;
  const minWitnesses = values['min-witnesses'] === undefined ? undefined : Number(values['min-witnesses']);
  if (minWitnesses !== undefined && (!Number.isInteger(minWitnesses) || minWitnesses < 0)) {
    out(`--min-witnesses must be a non-negative integer\n${VERIFY_PACK_USAGE}`);
    return 2;
  }
  const report = await verifyPack(file, {
    pinnedPublicKeyPem,
    keys,
    pinnedLogKeyPem: (values['log-key'] ?? []).map((path) => readFileSync(path, 'utf8')),
    since: values.since === undefined ? undefined : readFileSync(values.since, 'utf8'),
    witnessKeys: values.witness ?? [],
    minWitnesses,
    fetchConsistency: values.url === undefined ? undefined : consistencyFetcher(values.url),
  });
  out(formatPackReport(report, file));
  return report.valid ? 0 : 1;
}

/** GET /v1/presence/log/proof/consistency from the service, with PRESENCE_API_KEY. */
function consistencyFetcher(origin: string) {
  return async (from: number, to: number) => {
    const url = `${origin.replace(/\/+$/, '')}/v1/presence/log/proof/consistency?from=${from}&to=${to}`;
    const key = process.env['PRESENCE_API_KEY'];
    const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    if (!response.ok)
      throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    return (await response.json()) as { from: number; to: number; hashes: string[] };
  };
}
