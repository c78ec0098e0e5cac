import { Type, type Static } from '@sinclair/typebox';
import { SCOPES } from '../scopes.js';
import { Cursor, IsoTime, Limit, prefixedId } from './common.js';

const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));

export const ApiKey = Type.Object(
  {
    keyId: prefixedId('key'),
    name: Type.String(),
    prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
    scopes: Type.Array(ScopeSchema),
    createdAt: IsoTime,
    lastUsedAt: Type.Union([IsoTime, Type.Null()]),
    expiresAt: Type.Union([IsoTime, Type.Null()]),
    revokedAt: Type.Union([IsoTime, Type.Null()]),
  },
  { $id: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 5 * 365 * 86400 })),
  },
  { $id: 'CreateKeyBody', additionalProperties: false },
);
export type CreateKeyBody = Static<typeof CreateKeyBody>;

/** The only response that ever contains the secret. */
export const KeyCreated = Type.Object({ key: ApiKey, secret: Type.String() }, { $id: 'KeyCreated' });

/** A rotation: the new key with its secret, and the old key (still valid for the grace period). */
export const KeyRotated = Type.Object(
  {
    key: ApiKey,
    secret: Type.String(),
    // The same fields as ApiKey; a second `$id: ApiKey` in one response schema is not allowed.
    previous: Type.Object(ApiKey.properties, { description: 'the rotated key, valid until its expiresAt' }),
  },
  { $id: 'KeyRotated' },
);

export const RotateKeyBody = Type.Object(
  { gracePeriodSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86400, default: 86400 })) },
  { $id: 'RotateKeyBody', additionalProperties: false },
);
export const KeyParams = Type.Object({ keyId: prefixedId('key') });
export const ListKeysQuery = Type.Object(
  { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
