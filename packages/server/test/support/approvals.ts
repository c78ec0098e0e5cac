/** Helpers of the approvals tests: the hosted page's ceremony, run with a software authenticator. */
import type { SoftAuthenticator } from './soft-authenticator.js';
import { ORIGIN, type TestService } from './test-service.js';

/** The token of an `approvalUrl` made with PRESENCE_PUBLIC_ORIGIN = ORIGIN. */
export function tokenOf(approvalUrl: string): string {
  return approvalUrl.slice(`${ORIGIN}/approve/`.length);
}

/** Runs one ceremony of the hosted page (options, then decide) with `who`'s authenticator. */
export async function ceremony(
  s: Pick<TestService, 'request'>,
  token: string,
  intent: 'approve' | 'reject',
  who: SoftAuthenticator,
) {
  const options = await s.request('POST', `/approve/${token}/options`, { intent }, '');
  if (options.status !== 200) return options;
  const assertion = who.assert({ challenge: options.json.publicKey.challenge });
  return s.request(
    'POST',
    `/approve/${token}/decide`,
    { challengeId: options.json.challengeId, assertion },
    '',
  );
}

/** An approval as the service issues it: the signed set of `GET /v1/approvals/{id}` and its receipts. */
export interface IssuedApproval {
  approvalSet: { approvalSet: Record<string, unknown>; approvalSetHashHex: string; signature: unknown };
  receipts: unknown[];
}

/**
 * Creates an approval through `POST /v1/approvals`, approves it on the hosted page's endpoints with
 * each of `deciders` in turn, then returns the set the service signed with the receipts it lists,
 * each fetched from `GET /v1/presence/receipts/{receiptId}`. Needs PRESENCE_PUBLIC_ORIGIN = ORIGIN.
 */
export async function issuedApproval(
  s: Pick<TestService, 'request'>,
  request: { action: unknown; approvers: string[]; required: number; initiator?: string; title?: string },
  deciders: SoftAuthenticator[],
): Promise<IssuedApproval> {
  const created = await s.request('POST', '/v1/approvals', request);
  if (created.status !== 201) throw new Error(`create: ${JSON.stringify(created.json)}`);
  const token = tokenOf(created.json.approvalUrl);
  for (const who of deciders) {
    const decided = await ceremony(s, token, 'approve', who);
    if (decided.json?.recorded !== true) throw new Error(`decide: ${JSON.stringify(decided.json)}`);
  }
  const read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
  if (read.json.status !== 'approved') throw new Error(`not approved: ${JSON.stringify(read.json)}`);
  const approvalSet = read.json.approvalSet as IssuedApproval['approvalSet'];
  const receipts = [];
  for (const entry of approvalSet.approvalSet['approvals'] as { receiptId: string }[])
    receipts.push((await s.request('GET', `/v1/presence/receipts/${entry.receiptId}`)).json);
  return { approvalSet, receipts };
}
