import { parseArgs } from 'node:util';
import { createPresenceClient, type ExportReceiptsQuery } from '@presence/sdk';
import type { Command } from './commands.js';
import { downloadExport, type ExportSummary } from './download-export.js';
import { formatBytes, formatRate, type ProgressOutput } from './progress-line.js';

/** What a remote command touches: arguments aside, all of it injectable for tests. */
export interface RemoteIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: ProgressOutput;
  fetch?: typeof globalThis.fetch | undefined;
  signal?: AbortSignal | undefined;
}

const EXPORT_USAGE =
  '--url URL --from ISO --to ISO --out pack.zip [--api-key KEY] [--subject S] [--action-hash HEX] [--credential-id ID] [--force] [--json]';

/**
 * `presence export`: downloads a signed export pack over HTTP with an API key (scope
 * receipts:export), with a progress line on stderr and a summary on stdout. The key comes from
 * PRESENCE_API_KEY (preferred: arguments show up in `ps`) or --api-key; the URL from --url or
 * PRESENCE_URL. Exit codes: 0 done, 1 failed (nothing written), 2 bad arguments.
 */
export async function runExport(args: string[], io: RemoteIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      subject: { type: 'string' },
      'action-hash': { type: 'string' },
      'credential-id': { type: 'string' },
      force: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const url = values.url ?? io.env['PRESENCE_URL'];
  const apiKey = values['api-key'] ?? io.env['PRESENCE_API_KEY'];
  const { from, to, out } = values;
  const badTime = [from, to].some((t) => t !== undefined && Number.isNaN(Date.parse(t)));
  if (!url || !apiKey || !from || !to || !out || badTime) {
    io.stderr.write(
      `usage: presence export ${EXPORT_USAGE}\n  (set PRESENCE_API_KEY rather than --api-key; times are ISO 8601)\n`,
    );
    return 2;
  }
  const query: ExportReceiptsQuery = {
    from,
    to,
    ...(values.subject === undefined ? {} : { subject: values.subject }),
    ...(values['action-hash'] === undefined ? {} : { actionHashHex: values['action-hash'] }),
    ...(values['credential-id'] === undefined ? {} : { credentialId: values['credential-id'] }),
  };
  const client = createPresenceClient({ baseUrl: url, apiKey, fetch: io.fetch });
  const summary = await downloadExport({
    client,
    query,
    out,
    force: values.force === true,
    progress: io.stderr,
    signal: io.signal,
  });
  io.stdout.write(values.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary, url));
  return 0;
}

/** The summary ends with the whole check an auditor runs: fetch the published keys, verify against them. */
export function formatSummary(s: ExportSummary, baseUrl: string): string {
  const keysUrl = new URL('/.well-known/presence/keys.json', baseUrl).toString();
  return [
    `wrote ${s.file}`,
    `  receipts  ${s.receipts ?? 'unknown (no readable manifest.json)'}`,
    `  bytes     ${s.bytes} (${formatBytes(s.bytes)})`,
    `  duration  ${(s.durationMs / 1000).toFixed(1)} s (${formatRate(s.bytes, s.durationMs)})`,
    `  sha256    ${s.sha256}`,
    'check it with:',
    `  curl -fsS ${keysUrl} -o keys.json`,
    `  npx presence-verify ${s.file} --keys keys.json`,
    '',
  ].join('\n');
}

/**
 * Runs a remote command against the real process: Ctrl-C aborts its calls (an export removes its
 * partial file) and prints `interrupted`, exit code 130.
 */
export async function withProcessIo(
  run: (io: RemoteIo) => Promise<number>,
  interrupted = 'interrupted; no file written',
): Promise<number> {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt);
  try {
    return await run({
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.aborted) {
      process.stderr.write(`\npresence: ${interrupted}\n`);
      return 130;
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

export const remoteCommands: Record<string, Command> = {
  export: {
    summary: `${EXPORT_USAGE}: download a signed export pack over HTTP`,
    run: (args) => withProcessIo((io) => runExport(args, io)),
  },
};
