import type { ApprovalPageState } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { DomainError, notFound } from '../errors.js';
import { currentPolicyForChallenge } from '../policy/get-policy.js';
import type { PolicyRules } from '@presence/contract';
import { consoleApprovalPeople, type ApprovalPeople } from '../console/approval-people.js';
import { CONSOLE_TENANT_NAME } from '../console/console-settings.js';
import { effectiveStatus } from './approval-view.js';
import { rejectionActionHashHex } from './approval-set.js';
import type { LinkSettings } from './create-approval.js';
import { hashLinkToken } from './link-token.js';
import type { ApprovalRecord, ApproverRecord } from './ports.js';

type PageDeps = Pick<Deps, 'store' | 'clock' | 'currentPolicies'>;

/** The approval a link token names; 404 when none (an unknown token reveals nothing more). */
export async function approvalOfToken(deps: Pick<Deps, 'store'>, token: string): Promise<ApprovalRecord> {
  const approval = await deps.store.approvals.approvals.getByTokenHash(hashLinkToken(token));
  if (!approval) throw notFound('the approval link');
  return approval;
}

/** Refuses a ceremony on an approval that is no longer pending (410 link_expired). */
export function requirePending(approval: ApprovalRecord, now: number): void {
  const status = effectiveStatus(approval, now);
  if (status !== 'pending') {
    throw new DomainError('link_expired', `the approval is ${status}; it can no longer be decided`);
  }
}

/** What the hosted approval page shows: everything a person needs to decide, and nothing to act on without a passkey. */
export async function readApprovalPage(
  deps: PageDeps,
  token: string,
  links: LinkSettings,
): Promise<ApprovalPageState> {
  return approvalPageState(deps, await approvalOfToken(deps, token), links);
}

/**
 * The hosted page's state plus what only its HTML shows: the origin the page lives on (its QR
 * code) and, for a console change, its people by name and role.
 */
export async function readApprovalPageView(
  deps: PageDeps,
  token: string,
  links: LinkSettings,
): Promise<{ state: ApprovalPageState; origin: string; people: ApprovalPeople | null }> {
  const approval = await approvalOfToken(deps, token);
  const [state, tenant] = await Promise.all([
    approvalPageState(deps, approval, links),
    deps.store.tenants.get(approval.tenantId),
  ]);
  const inConsole = tenant?.name === CONSOLE_TENANT_NAME;
  const people = inConsole
    ? await consoleApprovalPeople(
        deps,
        state.action,
        state.approvers.map((a) => a.subject),
      )
    : null;
  return { state, origin: pageOrigin(links, tenant?.name), people };
}

/**
 * Where an approval's page lives: a console change's (an approval in the console's own tenant) on
 * the console origin, where its members' passkeys work; every other on PRESENCE_PUBLIC_ORIGIN.
 */
export function pageOrigin(links: LinkSettings, tenantName: string | undefined): string {
  return tenantName === CONSOLE_TENANT_NAME && links.consoleOrigin !== undefined
    ? links.consoleOrigin
    : links.publicOrigin;
}

export async function approvalPageState(
  deps: PageDeps,
  approval: ApprovalRecord,
  links: LinkSettings,
): Promise<ApprovalPageState> {
  const approvers = await deps.store.approvals.approvers.listFor(approval.tenantId, [approval.id]);
  return approvalPageStateOf(deps, approval, approvers, links);
}

/** The page state of an approval whose approvers the caller already holds (e.g. from its decision's transaction). */
export async function approvalPageStateOf(
  deps: PageDeps,
  approval: ApprovalRecord,
  approvers: ApproverRecord[],
  links: LinkSettings,
): Promise<ApprovalPageState> {
  const { tenantId } = approval;
  const [tenant, policy] = await Promise.all([
    deps.store.tenants.get(tenantId),
    currentPolicyForChallenge(deps, tenantId),
  ]);
  const status = effectiveStatus(approval, deps.clock.now());
  const action = JSON.parse(approval.actionJson) as Record<string, unknown>;
  return {
    approvalId: approval.id,
    tenantName: shownTenantName(tenant?.name ?? tenantId, action),
    status,
    title: approval.title,
    action,
    canonicalJson: approval.actionJson,
    actionHashHex: approval.actionHashHex,
    rejectionActionHashHex: rejectionActionHashHex(approval),
    bindingCode: approval.bindingCode,
    initiator: approval.initiator,
    required: approval.required,
    approvedCount: approvers.filter((a) => a.decision === 'approved').length,
    rejectedCount: approvers.filter((a) => a.decision === 'rejected').length,
    approvers: approvers.map((a) => ({
      subject: a.subject,
      decision: a.decision,
      decidedAt: a.decidedAt === null ? null : toIso(a.decidedAt),
    })),
    expiresAt: toIso(approval.expiresAt),
    createdAt: toIso(approval.createdAt),
    decidedAt:
      approval.decidedAt !== null
        ? toIso(approval.decidedAt)
        : status === 'expired'
          ? toIso(approval.expiresAt)
          : null,
    rpId: policy.rules.rpId,
    setupProblem: setupProblem(policy.rules, pageOrigin(links, tenant?.name)),
  };
}

/**
 * The tenant a person approves for: a console change is an approval of the console's own tenant,
 * made for the customer tenant its action names (docs/console.md#approvers-of-dangerous-changes).
 */
function shownTenantName(name: string, action: Record<string, unknown>): string {
  const forTenant = action['tenantName'];
  if (name !== CONSOLE_TENANT_NAME || action['service'] !== CONSOLE_TENANT_NAME) return name;
  return typeof forTenant === 'string' ? `${forTenant} (Presence console)` : name;
}

/**
 * Whether a passkey ceremony can work on the page's origin under the tenant's policy (WebAuthn:
 * the rpId must be the origin's host or a registrable suffix of it, and the policy must allow the
 * origin); otherwise what the operator must change.
 */
export function setupProblem(
  rules: Pick<PolicyRules, 'rpId' | 'allowedOrigins'>,
  publicOrigin: string,
): string | null {
  const host = new URL(publicOrigin).hostname;
  const hostFits = host === rules.rpId || host.endsWith(`.${rules.rpId}`);
  const allowed = rules.allowedOrigins.includes(publicOrigin);
  if (hostFits && allowed) return null;
  const steps: string[] = [];
  if (!hostFits) {
    steps.push(
      `the tenant's rpId "${rules.rpId}" is not the host of the public origin ${publicOrigin} nor a suffix of it: set PRESENCE_PUBLIC_ORIGIN to an origin under ${rules.rpId}, or serve ${publicOrigin} as a related origin of ${rules.rpId} (https://${rules.rpId}/.well-known/webauthn)`,
    );
  }
  if (!allowed) {
    steps.push(`add "${publicOrigin}" to the policy's allowedOrigins (PUT /v1/policy)`);
  }
  return `Passkeys cannot be used on this page yet: ${steps.join('; and ')}.`;
}
