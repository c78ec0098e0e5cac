import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../errors.js';

/** Lowercase hex SHA-256: 64 characters. */
export const HashHex = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lowercase hex SHA-256' });
export const Base64Url = Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 65536 });
export const IsoTime = Type.String({ format: 'date-time' });
/** An opaque, caller-chosen pseudonymous reference for the person behind an authenticator. */
export const Subject = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._:@/+=-]+$',
  description: 'opaque caller reference; no names or e-mail addresses',
});
export const Cursor = Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_.-]+$' });
export const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 50 });

export function prefixedId(prefix: string, description = `${prefix}_ id`) {
  return Type.String({ pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`, description });
}

export function Page<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });
}

/** RFC 9457 problem details, as every non-2xx response carries them. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: Object.keys(ERRORS),
      description: 'stable error code from the catalogue; type, status and title follow from it',
    }),
    detail: Type.String(),
    requestId: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
        description: 'the fields that failed validation, when any',
      }),
    ),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

/** For routes that take no query parameters: an unknown one is a 400, not silently ignored. */
export const NoQuery = Type.Object({}, { additionalProperties: false });
