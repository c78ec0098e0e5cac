import type { Credential, EnrollmentFinishBody, EnrollmentLinkBody } from '@presence/contract';
import { createRegistrationOptions } from '../credentials/create-registration-options.js';
import { registerCredential } from '../credentials/register-credential.js';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { currentPolicy } from '../policy/get-policy.js';
import { setupProblem } from './approval-page.js';
import type { LinkSettings } from './create-approval.js';
import { hashLinkToken, newLinkToken } from './link-token.js';
import type { EnrollmentLinkRecord } from './ports.js';

export const DEFAULT_ENROLLMENT_TTL_SECONDS = 86400;

type LinkDeps = Pick<Deps, 'store' | 'clock' | 'random'>;

/**
 * A single-use link that lets a person enroll one passkey for `subject` on the service's page,
 * for callers without a frontend of their own (docs/api-contract.md#13-approvals). Only the token's hash is stored.
 */
export async function createEnrollmentLink(
  deps: LinkDeps,
  tenantId: string,
  input: EnrollmentLinkBody,
  links: LinkSettings,
) {
  const now = deps.clock.now();
  const { token, tokenHash } = newLinkToken(deps.random);
  const link: EnrollmentLinkRecord = {
    id: newId(deps, 'enl'),
    tenantId,
    tokenHash,
    subject: input.subject,
    displayName: input.displayName ?? null,
    registrationId: null,
    createdAt: now,
    expiresAt: now + (input.expiresInSeconds ?? DEFAULT_ENROLLMENT_TTL_SECONDS) * 1000,
    usedAt: null,
  };
  await deps.store.transaction((tx) => tx.approvals.enrollmentLinks.insert(link));
  return { enrollmentUrl: `${links.publicOrigin}/enroll/${token}`, expiresAt: toIso(link.expiresAt) };
}

async function openLink(deps: LinkDeps, token: string): Promise<EnrollmentLinkRecord> {
  const link = await deps.store.approvals.enrollmentLinks.getByTokenHash(hashLinkToken(token));
  if (!link) throw notFound('the enrollment link');
  if (link.usedAt !== null || link.expiresAt <= deps.clock.now()) {
    throw new DomainError('link_expired', 'the enrollment link has expired or already enrolled a passkey');
  }
  return link;
}

/** What the enrollment page shows. */
export async function readEnrollmentPage(deps: LinkDeps, token: string, links: LinkSettings) {
  const link = await deps.store.approvals.enrollmentLinks.getByTokenHash(hashLinkToken(token));
  if (!link) throw notFound('the enrollment link');
  const [tenant, policy] = await Promise.all([
    deps.store.tenants.get(link.tenantId),
    currentPolicy(deps, link.tenantId),
  ]);
  return {
    tenantName: tenant?.name ?? link.tenantId,
    subject: link.subject,
    displayName: link.displayName,
    expiresAt: toIso(link.expiresAt),
    used: link.usedAt !== null || link.expiresAt <= deps.clock.now(),
    rpId: policy.rules.rpId,
    setupProblem: setupProblem(policy.rules, links.publicOrigin),
  };
}

/** Starts the registration ceremony of the link's subject; the link remembers it. */
export async function startLinkEnrollment(deps: LinkDeps, token: string) {
  const link = await openLink(deps, token);
  const options = await createRegistrationOptions(deps, link.tenantId, {
    subject: link.subject,
    ...(link.displayName !== null && { displayName: link.displayName }),
  });
  if (!(await deps.store.approvals.enrollmentLinks.attachRegistration(link.id, options.registrationId))) {
    throw new DomainError('link_expired', 'the enrollment link was used meanwhile');
  }
  return { expiresAt: options.expiresAt, publicKey: options.publicKey };
}

/**
 * Registers the passkey through the normal registration path; the link is consumed in the same
 * transaction as the credential (compare-and-set), so of racing finishes exactly one enrolls.
 */
export async function finishLinkEnrollment(
  deps: LinkDeps,
  token: string,
  input: EnrollmentFinishBody,
): Promise<{ credential: Credential }> {
  const link = await openLink(deps, token);
  if (link.registrationId === null) {
    throw new DomainError('conflict', 'start the enrollment first: POST /enroll/{token}/options');
  }
  const credential = await registerCredential(
    deps,
    link.tenantId,
    { registrationId: link.registrationId, credential: input.credential },
    async (tx) => {
      if (!(await tx.approvals.enrollmentLinks.consume(link.id, deps.clock.now()))) {
        throw new DomainError(
          'link_expired',
          'the enrollment link has expired or already enrolled a passkey',
        );
      }
    },
  );
  return { credential };
}
