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
