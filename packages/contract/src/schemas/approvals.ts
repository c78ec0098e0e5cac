/**
 * Approvals (docs/api-contract.md#13-approvals in docs/approvals.md): named approvers approve one exact action on the
 * service's own page. The API side (`/v1/approvals`), the JSON the hosted page reads and posts
 * (`/approve/{token}/…`, no API key: the token is the only credential) and enrollment links.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DECISIONS } from '../decisions.js';
import { ApprovalSetV1 } from './approval-set-v1.js';
import { Cursor, HashHex, IsoTime, Limit, Subject, prefixedId } from './common.js';
import {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from './webauthn.js';

export const ApprovalId = prefixedId('apr');
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;
export const ApprovalStatus = Type.Union(APPROVAL_STATUSES.map((s) => Type.Literal(s)));
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const ApproverDecision = Type.Union([Type.Literal('approved'), Type.Literal('rejected')]);

/** The most approvers one approval names; the longest title; the largest canonical action. */
export const MAX_APPROVERS = 20;
export const MAX_APPROVAL_TITLE = 120;
export const MAX_ACTION_BYTES = 16 * 1024;
/** The deepest nesting of objects and arrays an action may have (the action object is depth 1). */
export const MAX_ACTION_DEPTH = 32;

export const CreateApprovalBody = Type.Object(
  {
    action: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'the exact action (a JSON object, canonical form ≤ 16 KiB); hashed with RFC 8785',
      },
    ),
    approvers: Type.Array(Subject, {
      minItems: 1,
      maxItems: MAX_APPROVERS,
      description: 'distinct subjects',
    }),
    required: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_APPROVERS, default: 1 })),
    initiator: Type.Optional(Subject),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_APPROVAL_TITLE })),
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, default: 900 })),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { $id: 'CreateApprovalBody', additionalProperties: false },
);
export type CreateApprovalBody = Static<typeof CreateApprovalBody>;

export const Approver = Type.Object(
  {
    subject: Subject,
    decision: Type.Union([ApproverDecision, Type.Null()]),
    receiptId: Type.Optional(prefixedId('rct')),
    receiptHashHex: Type.Optional(HashHex),
    decidedAt: Type.Optional(IsoTime),
  },
  { $id: 'Approver' },
);

export const SignedApprovalSet = Type.Object(
  {
    approvalSet: ApprovalSetV1,
    approvalSetHashHex: HashHex,
    signature: Type.Object({
      alg: Type.Literal('Ed25519'),
      kid: Type.String(),
      signatureB64Url: Type.String(),
    }),
  },
  { $id: 'SignedApprovalSet' },
);
export type SignedApprovalSet = Static<typeof SignedApprovalSet>;

export const Approval = Type.Object(
  {
    approvalId: ApprovalId,
    status: ApprovalStatus,
    actionHashHex: HashHex,
    action: Type.Object({}, { additionalProperties: true }),
    title: Type.Union([Type.String(), Type.Null()]),
    required: Type.Integer({ minimum: 1 }),
    approvers: Type.Array(Approver),
    initiator: Type.Optional(Subject),
    purpose: Type.Optional(Type.String()),
    bindingCode: Type.String({ pattern: '^[A-Z0-9]{6}$' }),
    expiresAt: IsoTime,
    createdAt: IsoTime,
    decidedAt: Type.Optional(IsoTime),
    approvalSet: Type.Optional(SignedApprovalSet),
  },
  { $id: 'Approval' },
);
export type Approval = Static<typeof Approval>;

export const ApprovalCreated = Type.Object(
  {
    ...Approval.properties,
    approvalUrl: Type.String({ description: '<public origin>/approve/<token>; shown once' }),
  },
  { $id: 'ApprovalCreated' },
);

export const ApprovalParams = Type.Object({ approvalId: ApprovalId });
export const GetApprovalQuery = Type.Object(
  {
    waitSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60,
        default: 0,
        description: 'long-poll until the approval changes',
      }),
    ),
  },
  { additionalProperties: false },
);
export const ListApprovalsQuery = Type.Object(
  { status: Type.Optional(ApprovalStatus), limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const ApprovalList = Type.Object(
  { data: Type.Array(Approval), nextCursor: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'ApprovalList' },
);

/** The path token of `/approve/{token}` and `/enroll/{token}`: 43 base64url characters (256 bits). */
export const LinkTokenParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) });

/** What the hosted approval page shows (no API key: the token is the credential). */
export const ApprovalPageState = Type.Object(
  {
    approvalId: ApprovalId,
    tenantName: Type.String(),
    status: ApprovalStatus,
    title: Type.Union([Type.String(), Type.Null()]),
    action: Type.Object({}, { additionalProperties: true }),
    canonicalJson: Type.String({ description: 'the RFC 8785 bytes that were hashed, as text' }),
    actionHashHex: HashHex,
    rejectionActionHashHex: HashHex,
    bindingCode: Type.String(),
    initiator: Type.Union([Subject, Type.Null()]),
    required: Type.Integer(),
    approvedCount: Type.Integer(),
    rejectedCount: Type.Integer(),
    approvers: Type.Array(
      Type.Object({
        subject: Subject,
        decision: Type.Union([ApproverDecision, Type.Null()]),
        decidedAt: Type.Union([IsoTime, Type.Null()]),
      }),
    ),
    expiresAt: IsoTime,
    createdAt: IsoTime,
    decidedAt: Type.Union([IsoTime, Type.Null()]),
    rpId: Type.String(),
    setupProblem: Type.Union([Type.String(), Type.Null()], {
      description: 'null when passkeys can work on this page; otherwise what the operator must change',
    }),
  },
  { $id: 'ApprovalPageState' },
);
export type ApprovalPageState = Static<typeof ApprovalPageState>;

export const ApprovalIntent = Type.Union([Type.Literal('approve'), Type.Literal('reject')]);
export type ApprovalIntent = Static<typeof ApprovalIntent>;

export const CeremonyOptionsBody = Type.Object(
  { intent: ApprovalIntent },
  { $id: 'CeremonyOptionsBody', additionalProperties: false },
);
export const CeremonyOptions = Type.Object(
  {
    challengeId: prefixedId('chl'),
    intent: ApprovalIntent,
    actionHashHex: HashHex,
    expiresAt: IsoTime,
    publicKey: PublicKeyCredentialRequestOptionsJSON,
  },
  { $id: 'CeremonyOptions' },
);
export const DecideBody = Type.Object(
  { challengeId: Type.String({ minLength: 1, maxLength: 64 }), assertion: AuthenticationResponseJSON },
  { $id: 'DecideBody', additionalProperties: false },
);
export type DecideBody = Static<typeof DecideBody>;
export const DecideResult = Type.Object(
  {
    decision: Type.Union(DECISIONS.map((d) => Type.Literal(d))),
    intent: ApprovalIntent,
    recorded: Type.Boolean({ description: 'true when the passkey decision counts for this approval' }),
    receiptId: Type.Optional(prefixedId('rct')),
    receiptHashHex: Type.Optional(HashHex),
    reason: Type.Optional(Type.String()),
    state: ApprovalPageState,
  },
  { $id: 'DecideResult' },
);

export const EnrollmentLinkBody = Type.Object(
  {
    subject: Subject,
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 604800, default: 86400 })),
  },
  { $id: 'EnrollmentLinkBody', additionalProperties: false },
);
export type EnrollmentLinkBody = Static<typeof EnrollmentLinkBody>;
export const EnrollmentLink = Type.Object(
  { enrollmentUrl: Type.String(), expiresAt: IsoTime },
  { $id: 'EnrollmentLink' },
);
export const EnrollmentPageState = Type.Object(
  {
    tenantName: Type.String(),
    subject: Subject,
    displayName: Type.Union([Type.String(), Type.Null()]),
    expiresAt: IsoTime,
    used: Type.Boolean(),
    rpId: Type.String(),
    setupProblem: Type.Union([Type.String(), Type.Null()], {
      description: 'null when passkeys can work on this page; otherwise what the operator must change',
    }),
  },
  { $id: 'EnrollmentPageState' },
);
/** The enrollment page posts `{}`: the link names the subject. */
export const EnrollmentOptionsBody = Type.Object(
  {},
  { $id: 'EnrollmentOptionsBody', additionalProperties: false },
);
export const EnrollmentOptions = Type.Object(
  { expiresAt: IsoTime, publicKey: PublicKeyCredentialCreationOptionsJSON },
  { $id: 'EnrollmentOptions' },
);
export const EnrollmentFinishBody = Type.Object(
  { credential: RegistrationResponseJSON },
  { $id: 'EnrollmentFinishBody', additionalProperties: false },
);
export type EnrollmentFinishBody = Static<typeof EnrollmentFinishBody>;
