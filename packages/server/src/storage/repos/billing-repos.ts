import type { Kysely } from 'kysely';
import type { BillingRepos } from '../../domain/billing/ports.js';
import type { Dialect } from '../open-database.js';
import type { Database } from '../schema.js';
import { createInvoiceRepo } from './billing-invoices.js';
import { createPlanRepo } from './billing-plans.js';
import { createQuotaRepo, createUsageRollupRepo } from './billing-usage.js';

export function createBillingRepos(db: Kysely<Database>, dialect: Dialect): BillingRepos {
  return {
    rollups: createUsageRollupRepo(db),
    quotas: createQuotaRepo(db, dialect),
    plans: createPlanRepo(db),
    invoices: createInvoiceRepo(db),
  };
}
