import type { Plan } from '@presence/contract';
import type { Kysely } from 'kysely';
import type { PlanRepo } from '../../domain/billing/ports.js';
import type { Database } from '../schema.js';
import { parseJson } from './rows.js';

export function createPlanRepo(db: Kysely<Database>): PlanRepo {
  return {
    async put(a) {
      const row = {
        tenant_id: a.tenantId,
        effective_from: a.effectiveFrom,
        plan: JSON.stringify(a.plan),
        created_at: a.createdAt,
      };
      await db
        .insertInto('billing_plans')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'effective_from'])
            .doUpdateSet({ plan: row.plan, created_at: row.created_at }),
        )
        .execute();
    },
    async inForce(tenantId, periodStart) {
      const row = await db
        .selectFrom('billing_plans')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('effective_from', '<=', periodStart)
        .orderBy('effective_from', 'desc')
        .limit(1)
        .executeTakeFirst();
      return (
        row && {
          tenantId: row.tenant_id,
          effectiveFrom: row.effective_from,
          plan: parseJson<Plan>(row.plan),
          createdAt: row.created_at,
        }
      );
    },
  };
}
