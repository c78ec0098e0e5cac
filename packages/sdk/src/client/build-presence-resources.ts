import type { CallOptions, CreateOptions, HttpTransport } from './http-transport.js';
import { newIdempotencyKey } from './http-transport.js';
import { PageIterator } from './page-iterator.js';
import type {
  ChallengeCreated,
  ChallengeView,
  CreateChallengeBody,
  Credential,
  CredentialCreated,
  ExportReceiptsQuery,
  ListCredentialsQuery,
  ListReceiptsQuery,
  Page,
  ReceiptListItem,
  ReceiptVerification,
  RegisterCredentialBody,
  RegistrationOptions,
  RegistrationOptionsBody,
  SignedReceipt,
  VerifyBody,
  VerifyReceiptBody,
  VerifyResult,
} from './wire-types.js';

const id = encodeURIComponent;
const keyOf = (o?: CreateOptions) => o?.idempotencyKey ?? newIdempotencyKey();

/** A streamed export pack (docs/api-contract.md#7-export-packs): read `body` to the end, or cancel it to stop the export. */
export interface ExportDownload {
  body: ReadableStream<Uint8Array>;
  /** Null when the service streams without a length (the usual case). */
  contentLength: number | null;
  contentType: string | null;
  requestId: string | null;
}

/** The presence gate: challenges and verification. */
export function buildPresenceResources(t: HttpTransport) {
  return {
    /** `POST /v1/presence/challenge`: a single-use challenge bound to `actionHashHex`. */
    createChallenge: (body: CreateChallengeBody, o?: CreateOptions) =>
      t.json<ChallengeCreated>(
        { method: 'POST', path: '/v1/presence/challenge', body, idempotencyKey: keyOf(o) },
        o,
      ),
    /**
     * `POST /v1/presence/verify`: act only when `decision === 'PRESENCE_VERIFIED'`. Sent with an
     * Idempotency-Key, so a retry after a lost response returns the original decision.
     */
    verify: (body: VerifyBody, o?: CreateOptions) =>
      t.json<VerifyResult>(
        { method: 'POST', path: '/v1/presence/verify', body, idempotencyKey: keyOf(o) },
        o,
      ),
    getChallenge: (challengeId: string, o?: CallOptions) =>
      t.json<ChallengeView>({ method: 'GET', path: `/v1/presence/challenges/${id(challengeId)}` }, o),
    getChallengeReceipt: (challengeId: string, o?: CallOptions) =>
      t.json<SignedReceipt>({ method: 'GET', path: `/v1/presence/challenges/${id(challengeId)}/receipt` }, o),
  };
}

/** Enrollment and management of authenticators. */
export function buildCredentialResources(t: HttpTransport) {
  const listPage = (query: ListCredentialsQuery = {}, o?: CallOptions) =>
    t.json<Page<Credential>>({ method: 'GET', path: '/v1/presence/credentials', query }, o);
  return {
    createOptions: (body: RegistrationOptionsBody, o?: CreateOptions) =>
      t.json<RegistrationOptions>(
        { method: 'POST', path: '/v1/presence/credentials/options', body, idempotencyKey: keyOf(o) },
        o,
      ),
    register: (body: RegisterCredentialBody, o?: CreateOptions) =>
      t.json<CredentialCreated>(
        { method: 'POST', path: '/v1/presence/credentials', body, idempotencyKey: keyOf(o) },
        o,
      ),
    listPage,
    list: (query: Omit<ListCredentialsQuery, 'cursor'> = {}, o?: CallOptions) =>
      new PageIterator((cursor) => listPage({ ...query, ...(cursor ? { cursor } : {}) }, o)),
    get: (credentialId: string, o?: CallOptions) =>
      t.json<CredentialCreated>({ method: 'GET', path: `/v1/presence/credentials/${id(credentialId)}` }, o),
    revoke: (credentialId: string, o?: CallOptions) =>
      t.json<CredentialCreated>(
        { method: 'DELETE', path: `/v1/presence/credentials/${id(credentialId)}` },
        o,
      ),
  };
}

/** Receipts: one at a time, listed, checked, or exported as a signed pack. */
export function buildReceiptResources(t: HttpTransport) {
  const listPage = (query: ListReceiptsQuery = {}, o?: CallOptions) =>
    t.json<Page<ReceiptListItem>>({ method: 'GET', path: '/v1/presence/receipts', query }, o);
  return {
    get: (receiptId: string, o?: CallOptions) =>
      t.json<SignedReceipt>({ method: 'GET', path: `/v1/presence/receipts/${id(receiptId)}` }, o),
    /** Runs the service's checks on a receipt (read-only; no key needed for retries). */
    verify: (body: VerifyReceiptBody, o?: CallOptions) =>
      t.json<ReceiptVerification>({ method: 'POST', path: '/v1/presence/receipts/verify', body }, o),
    listPage,
    list: (query: Omit<ListReceiptsQuery, 'cursor'> = {}, o?: CallOptions) =>
      new PageIterator((cursor) => listPage({ ...query, ...(cursor ? { cursor } : {}) }, o)),
    /** Starts a streamed export; retried only until the response headers arrive. */
    export: async (query: ExportReceiptsQuery, o?: CallOptions): Promise<ExportDownload> => {
      const response = await t.stream(
        {
          method: 'GET',
          path: '/v1/presence/receipts/export',
          query,
          accept: 'application/zip, application/problem+json',
        },
        o,
      );
      if (!response.body) throw new TypeError('the export response has no body');
      const length = response.headers.get('content-length');
      return {
        body: response.body,
        contentLength: length === null ? null : Number(length),
        contentType: response.headers.get('content-type'),
        requestId: response.headers.get('x-request-id'),
      };
    },
  };
}
