import type { CallOptions, CreateOptions, HttpTransport } from './http-transport.js';
import { newIdempotencyKey } from './http-transport.js';
import { PageIterator } from './page-iterator.js';
import type {
  Approval,
  ApprovalCreated,
  CreateApprovalBody,
  EnrollmentLink,
  EnrollmentLinkBody,
  ListApprovalsQuery,
  Page,
} from './wire-types.js';

const id = encodeURIComponent;
const keyOf = (o?: CreateOptions) => o?.idempotencyKey ?? newIdempotencyKey();

/** One long poll of `wait` asks for at most this many seconds (well under the default 30 s timeout). */
export const WAIT_POLL_SECONDS = 20;

export interface WaitOptions extends CallOptions {
  /** How long to wait in all; default 15 minutes. The approval is returned as it is then. */
  timeoutMs?: number | undefined;
  /** Seconds of each long poll (1–60, default 20); keep it below the client's timeoutMs. */
  pollSeconds?: number | undefined;
}

/** Approvals (docs/api-contract.md#13-approvals): ask named approvers to approve one exact action on the hosted page. */
export function buildApprovalResources(t: HttpTransport) {
  const get = (approvalId: string, query: { waitSeconds?: number } = {}, o?: CallOptions) =>
    t.json<Approval>({ method: 'GET', path: `/v1/approvals/${id(approvalId)}`, query }, o);
  const listPage = (query: ListApprovalsQuery = {}, o?: CallOptions) =>
    t.json<Page<Approval>>({ method: 'GET', path: '/v1/approvals', query }, o);
  return {
    /** `POST /v1/approvals`: the answer holds `approvalUrl` (shown only here) and `bindingCode`. */
    create: (body: CreateApprovalBody, o?: CreateOptions) =>
      t.json<ApprovalCreated>({ method: 'POST', path: '/v1/approvals', body, idempotencyKey: keyOf(o) }, o),
    /** `GET /v1/approvals/{id}`; `waitSeconds` (0–60) long-polls until its status or a decision changes. */
    get,
    /**
     * Long-polls until the approval is no longer pending (approved, rejected, expired or
     * cancelled) or `timeoutMs` passes; returns the approval as last read. Act only on
     * `status === 'approved'`, after verifying `approvalSet` (verifyApprovalSet).
     */
    wait: async (approvalId: string, o: WaitOptions = {}): Promise<Approval> => {
      const deadline = Date.now() + (o.timeoutMs ?? 15 * 60_000);
      const poll = Math.min(60, Math.max(1, Math.floor(o.pollSeconds ?? WAIT_POLL_SECONDS)));
      let approval = await get(approvalId, {}, o);
      while (approval.status === 'pending') {
        const left = Math.floor((deadline - Date.now()) / 1000);
        if (left <= 0) break;
        approval = await get(approvalId, { waitSeconds: Math.min(poll, left) }, o);
      }
      return approval;
    },
    /** `POST /v1/approvals/{id}/cancel`: 409 approval_not_pending unless pending. */
    cancel: (approvalId: string, o?: CreateOptions) =>
      t.json<Approval>(
        { method: 'POST', path: `/v1/approvals/${id(approvalId)}/cancel`, idempotencyKey: keyOf(o) },
        o,
      ),
    listPage,
    list: (query: Omit<ListApprovalsQuery, 'cursor'> = {}, o?: CallOptions) =>
      new PageIterator((cursor) => listPage({ ...query, ...(cursor ? { cursor } : {}) }, o)),
  };
}

/** Enrollment links: a person enrolls one passkey for a subject on the hosted page. */
export function buildEnrollmentLinkResources(t: HttpTransport) {
  return {
    /** `POST /v1/presence/enrollment-links` → `{enrollmentUrl, expiresAt}` (single use). */
    create: (body: EnrollmentLinkBody, o?: CreateOptions) =>
      t.json<EnrollmentLink>(
        { method: 'POST', path: '/v1/presence/enrollment-links', body, idempotencyKey: keyOf(o) },
        o,
      ),
  };
}
