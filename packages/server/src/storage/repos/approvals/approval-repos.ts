import type { Kysely } from 'kysely';
import type { ApprovalRepos } from '../../../domain/approvals/ports.js';
import type { Database } from '../../schema.js';
import { createApprovalChallengeRepo } from './approval-challenges.js';
import { createApprovalRepo } from './approvals.js';
import { createApprovalSetRepo } from './approval-sets.js';
import { createApproverRepo } from './approval-approvers.js';
import { createEnrollmentLinkRepo } from './enrollment-links.js';
import { createUniqueActionRepo } from './unique-action-claims.js';

/** The approval tables' repos, one module per table. */
export function createApprovalRepos(db: Kysely<Database>): ApprovalRepos {
  return {
    approvals: createApprovalRepo(db),
    approvers: createApproverRepo(db),
    sets: createApprovalSetRepo(db),
    challenges: createApprovalChallengeRepo(db),
    enrollmentLinks: createEnrollmentLinkRepo(db),
    uniqueActions: createUniqueActionRepo(db),
  };
}
