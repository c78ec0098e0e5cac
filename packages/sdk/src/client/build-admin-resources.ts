import type { CallOptions, CreateOptions, HttpTransport } from './http-transport.js';
import { newIdempotencyKey } from './http-transport.js';
import { PageIterator } from './page-iterator.js';
import type {
  ApiKey,
  AuditEvent,
  ListAuditEventsQuery,
  CreateKeyBody,
  Invoice,
  KeyCreated,
  ListInvoicesQuery,
  KeyRotated,
  Page,
  PageQuery,
  PolicyBody,
  PolicyVersion,
  RotateKeyBody,
  ServiceKeySet,
  UsageQuery,
  UsageReport,
} from './wire-types.js';

const id = encodeURIComponent;
const keyOf = (o?: CreateOptions) => o?.idempotencyKey ?? newIdempotencyKey();

/** A paginated GET as both a page fetcher and an auto-paginating iterator. */
export function listing<T, Q extends object>(t: HttpTransport, path: string) {
  const listPage = (query?: Q & PageQuery, o?: CallOptions) =>
    t.json<Page<T>>({ method: 'GET', path, query }, o);
  const list = (query?: Q & { limit?: number }, o?: CallOptions) =>
    new PageIterator<T>((cursor) =>
      listPage({ ...query, ...(cursor ? { cursor } : {}) } as Q & PageQuery, o),
    );
  return { listPage, list };
}

/** API keys: the secret of a created or rotated key is in that one response only. */
export function buildKeyResources(t: HttpTransport) {
  return {
    create: (body: CreateKeyBody, o?: CreateOptions) =>
      t.json<KeyCreated>({ method: 'POST', path: '/v1/keys', body, idempotencyKey: keyOf(o) }, o),
    ...listing<ApiKey, object>(t, '/v1/keys'),
    get: (keyId: string, o?: CallOptions) =>
      t.json<ApiKey>({ method: 'GET', path: `/v1/keys/${id(keyId)}` }, o),
    rotate: (keyId: string, body: RotateKeyBody = {}, o?: CreateOptions) =>
      t.json<KeyRotated>(
        { method: 'POST', path: `/v1/keys/${id(keyId)}/rotate`, body, idempotencyKey: keyOf(o) },
        o,
      ),
    revoke: (keyId: string, o?: CallOptions) =>
      t.json<ApiKey>({ method: 'DELETE', path: `/v1/keys/${id(keyId)}` }, o),
  };
}

/** Audit events (docs/api-contract.md#14-audit-events): every change of configuration or access, newest first. */
export function buildAuditResources(t: HttpTransport) {
  const events = listing<AuditEvent, Omit<ListAuditEventsQuery, 'cursor' | 'limit'>>(t, '/v1/audit-events');
  return { listEventsPage: events.listPage, listEvents: events.list };
}

/** The tenant's verification policy; every PUT writes a new immutable version. */
export function buildPolicyResources(t: HttpTransport) {
  return {
    get: (o?: CallOptions) => t.json<PolicyVersion>({ method: 'GET', path: '/v1/policy' }, o),
    put: (body: PolicyBody, o?: CreateOptions) =>
      t.json<PolicyVersion>({ method: 'PUT', path: '/v1/policy', body, idempotencyKey: keyOf(o) }, o),
  };
}

/** Metered usage and invoices (docs/api-contract.md#4-endpoints); an invoice id is `inv_…` or a live `draft_YYYY-MM`. */
export function buildBillingResources(t: HttpTransport) {
  const invoices = listing<Invoice, Omit<ListInvoicesQuery, 'cursor' | 'limit'>>(t, '/v1/billing/invoices');
  return {
    usage: (query: UsageQuery, o?: CallOptions) =>
      t.json<UsageReport>({ method: 'GET', path: '/v1/billing/usage', query }, o),
    listInvoicesPage: invoices.listPage,
    listInvoices: invoices.list,
    getInvoice: (invoiceId: string, o?: CallOptions) =>
      t.json<Invoice>({ method: 'GET', path: `/v1/billing/invoices/${id(invoiceId)}` }, o),
  };
}

/** Public documents, readable without an API key. */
export function buildWellKnownResources(t: HttpTransport) {
  return {
    /** The service's Ed25519 public keys (old ones included) that sign receipts and packs. */
    keys: (o?: CallOptions) =>
      t.json<ServiceKeySet>({ method: 'GET', path: '/.well-known/presence/keys.json' }, o),
  };
}
