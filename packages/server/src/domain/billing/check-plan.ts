import { Plan, type Plan as PlanValue } from '@presence/contract';
import { Value } from '@sinclair/typebox/value';
import { DomainError, type FieldError } from '../errors.js';

/**
 * What the schema cannot say about a plan: each meter's tiers have strictly increasing `upTo`,
 * and only the last one is open-ended (`upTo: null`). `at` prefixes the field names.
 */
export function checkPlan(plan: PlanValue, at = ''): void {
  const fields: FieldError[] = [];
  for (const [meter, price] of Object.entries(plan.meters)) {
    let previous = 0;
    price.tiers.forEach((tier, i) => {
      const field = `${at}/meters/${meter}/tiers/${i}/upTo`;
      const last = i === price.tiers.length - 1;
      if (last && tier.upTo !== null) fields.push({ field, message: 'the last tier must have upTo: null' });
      if (!last && tier.upTo === null)
        fields.push({ field, message: 'only the last tier may be open-ended' });
      if (tier.upTo !== null && tier.upTo <= previous) {
        fields.push({ field, message: `must be greater than ${previous}` });
      }
      previous = tier.upTo ?? previous;
    });
  }
  if (fields.length > 0) {
    throw new DomainError(
      'invalid_request',
      fields.map((f) => `${f.field}: ${f.message}`).join('; '),
      fields,
    );
  }
}

/** Parses an untrusted plan document (a file, configuration): schema, then the tier rules. */
export function parsePlan(value: unknown, source: string): PlanValue {
  const withDefaults = Value.Default(Plan, Value.Clone(value));
  if (!Value.Check(Plan, withDefaults)) {
    const problems = [...Value.Errors(Plan, withDefaults)].map((e) => `${e.path || '/'} ${e.message}`);
    throw new DomainError('invalid_request', `${source} is not a valid plan: ${problems.join('; ')}`);
  }
  checkPlan(withDefaults);
  return withDefaults;
}
