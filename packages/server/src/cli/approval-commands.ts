import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  createPresenceClient,
  PresenceApiError,
  type Approval,
  type CreateApprovalBody,
} from '@presence/sdk';
import type { Command } from './commands.js';
import { APPROVAL_EXIT, exitCodeOf, formatApproval, formatCreated } from './approval-output.js';
import { withProcessIo, type RemoteIo } from './remote-commands.js';

export const REQUEST_USAGE =
  'presence approvals request --url URL --action FILE --approver S [--approver S…] [--required M] ' +
  '[--initiator S] [--title T] [--expires SECONDS] [--wait[=SECONDS]] [--json]';
export const GET_USAGE = 'presence approvals get ID [--url URL] [--json]';

const REQUEST_HELP = `usage: ${REQUEST_USAGE}
  Asks the approvers to approve the exact action in FILE (a JSON object) on the service's page.
  Prints the approval link, the binding code and a QR code of the link (--json: one JSON line
  with the created approval on stdout, the link on stderr). The API key comes from PRESENCE_API_KEY
  (scope approvals:write, and approvals:read with --wait); the URL from --url or PRESENCE_URL.
  --wait waits until the approval expires, --wait=SECONDS at most that long; then prints the
  approval (--json: a second line, the approval as GET /v1/approvals/{id} returns it).
exit codes: 0 created (with --wait: approved; the approval set hash is printed), 1 failed,
  2 bad usage, 3 rejected, 4 expired or cancelled, 5 still pending when the wait ended
`;
const GET_HELP = `usage: ${GET_USAGE}
  Prints the approval: status, each approver's decision and, once approved, the approval set hash
  (--json: the approval as GET /v1/approvals/{id} returns it, approval set included). Key in
  PRESENCE_API_KEY (scope approvals:read). Exit codes: 0 read, 1 failed, 2 bad usage.
`;

/** A usage problem: printed with the usage text, exit code 2. */
class UsageError extends Error {}

/** `--wait` alone means "until the approval expires"; `--wait=N` at most N seconds. */
function splitWait(args: string[]): { rest: string[]; wait: 'expiry' | number | undefined } {
  let wait: 'expiry' | number | undefined;
  const rest = args.filter((arg) => {
    if (arg === '--wait') wait = 'expiry';
    else if (arg.startsWith('--wait=')) {
      const text = arg.slice('--wait='.length);
      if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new UsageError('--wait=SECONDS needs 1–999999');
      wait = Number(text);
    } else return true;
    return false;
  });
  return { rest, wait };
}

function integerOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`--${name} needs a whole number`);
  return Number(text);
}

function readAction(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--action ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError(`--action ${file}: the action must be a JSON object`);
  return parsed as Record<string, unknown>;
}

function parseRequest(args: string[], env: RemoteIo['env']) {
  const { rest, wait } = splitWait(args);
  const { values } = parseArgs({
    args: rest,
    options: {
      url: { type: 'string' },
      action: { type: 'string' },
      approver: { type: 'string', multiple: true },
      required: { type: 'string' },
      initiator: { type: 'string' },
      title: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const url = values.url ?? env['PRESENCE_URL'];
  if (!url) throw new UsageError('--url (or PRESENCE_URL) is required');
  if (!values.action) throw new UsageError('--action FILE is required');
  if (!values.approver?.length) throw new UsageError('at least one --approver is required');
  const required = integerOption('required', values.required);
  const expires = integerOption('expires', values.expires);
  const body: CreateApprovalBody = {
    action: readAction(values.action),
    approvers: values.approver,
    ...(required === undefined ? {} : { required }),
    ...(values.initiator === undefined ? {} : { initiator: values.initiator }),
    ...(values.title === undefined ? {} : { title: values.title }),
    ...(expires === undefined ? {} : { expiresInSeconds: expires }),
  };
  return { url, body, wait, json: values.json === true };
}

/** How long `--wait` waits in all: until a few seconds past expiry, or the given seconds. */
function waitMs(wait: 'expiry' | number, expiresAt: string): number {
  return wait === 'expiry' ? Math.max(0, Date.parse(expiresAt) - Date.now()) + 5_000 : wait * 1000;
}

/** `presence approvals request`: create, hand out the link, optionally wait for the outcome. */
export async function runApprovalRequest(args: string[], io: RemoteIo): Promise<number> {
  const apiKey = io.env['PRESENCE_API_KEY'];
  if (!apiKey) throw new UsageError('set PRESENCE_API_KEY to an API key with scope approvals:write');
  const { url, body, wait, json } = parseRequest(args, io.env);
  const client = createPresenceClient({ baseUrl: url, apiKey, fetch: io.fetch });
  const created = await client.approvals.create(body, { signal: io.signal });
  if (json) {
    io.stdout.write(`${JSON.stringify(created)}\n`);
    io.stderr.write(`approval link: ${created.approvalUrl} (binding code ${created.bindingCode})\n`);
  } else io.stdout.write(await formatCreated(created));
  if (wait === undefined) return APPROVAL_EXIT.approved;
  if (!json) io.stderr.write(`waiting for the decision (Ctrl-C stops waiting; the approval stays open)…\n`);
  const approval = await client.approvals.wait(created.approvalId, {
    timeoutMs: waitMs(wait, created.expiresAt),
    signal: io.signal,
  });
  io.stdout.write(json ? `${JSON.stringify(approval)}\n` : formatOutcome(approval));
  return exitCodeOf(approval);
}

function formatOutcome(approval: Approval): string {
  const ended = approval.status === 'pending' ? 'the wait ended; the approval is still pending\n' : '';
  return `${ended}${formatApproval(approval)}`;
}

/** `presence approvals get ID`. */
export async function runApprovalGet(args: string[], io: RemoteIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { url: { type: 'string' }, json: { type: 'boolean' } },
  });
  const url = values.url ?? io.env['PRESENCE_URL'];
  const apiKey = io.env['PRESENCE_API_KEY'];
  const [approvalId, ...extra] = positionals;
  if (!approvalId || extra.length > 0) throw new UsageError('one approval id (apr_…) is required');
  if (!url) throw new UsageError('--url (or PRESENCE_URL) is required');
  if (!apiKey) throw new UsageError('set PRESENCE_API_KEY to an API key with scope approvals:read');
  const client = createPresenceClient({ baseUrl: url, apiKey, fetch: io.fetch });
  const approval = await client.approvals.get(approvalId, {}, { signal: io.signal });
  io.stdout.write(values.json ? `${JSON.stringify(approval)}\n` : formatApproval(approval));
  return 0;
}

/** Bad usage → 2 with the help text; an API refusal → 1 with the problem; `--help` → 0. */
async function guarded(args: string[], help: string, io: RemoteIo, run: () => Promise<number>) {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(help);
    return 0;
  }
  try {
    return await run();
  } catch (error) {
    if (
      error instanceof UsageError ||
      String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
    ) {
      io.stderr.write(`presence: ${(error as Error).message}\n${help}`);
      return APPROVAL_EXIT.usage;
    }
    if (error instanceof PresenceApiError && !io.signal?.aborted) {
      io.stderr.write(`presence: ${error.message}\n`);
      for (const e of error.errors) io.stderr.write(`  ${e.field}: ${e.message}\n`);
      return APPROVAL_EXIT.failed;
    }
    throw error;
  }
}

export const approvalCommands: Record<string, Command> = {
  'approvals request': {
    summary: '--url URL --action FILE --approver S… [--wait[=SECONDS]]: ask for an approval (--help)',
    run: (args) =>
      withProcessIo(
        (io) => guarded(args, REQUEST_HELP, io, () => runApprovalRequest(args, io)),
        'interrupted; the approval stays open (presence approvals get ID reads it)',
      ),
  },
  'approvals get': {
    summary: 'ID [--url URL] [--json]: show an approval and its approval set hash',
    run: (args) => withProcessIo((io) => guarded(args, GET_HELP, io, () => runApprovalGet(args, io))),
  },
};
