import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, prefixedId } from './common.js';
import { PolicyBody } from './policy.js';

/** POST /admin/v1/tenants: what the operator gives for a new tenant. */
export const CreateTenantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    rpId: PolicyBody.properties.rpId,
    allowedOrigins: PolicyBody.properties.allowedOrigins,
    relatedOrigins: PolicyBody.properties.relatedOrigins,
    apiKey: Type.Optional(
      Type.Boolean({ default: false, description: 'also create a full-scope API key (shown once)' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTenantBody = Static<typeof CreateTenantBody>;

export const TenantCreated = Type.Object({
  tenantId: prefixedId('ten'),
  name: Type.String(),
  /** Single-use link for the tenant's first console owner; shown once. */
  ownerInviteUrl: Type.String(),
  ownerInviteExpiresAt: IsoTime,
  /** Only when asked for: the full-scope API key, shown once. */
  apiKey: Type.Optional(Type.String()),
});
export type TenantCreated = Static<typeof TenantCreated>;
