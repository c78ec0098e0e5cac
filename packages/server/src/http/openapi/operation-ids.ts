/**
 * operationIds of the documented routes: what code generators name their methods after. Keyed
 * `METHOD /fastify/:path`; the names follow the SDK's resources where there is one. A route not
 * listed here still gets an id, derived from its method and path (`operationIdOf`), so a new
 * route is never undocumented; give it a proper name here when it lands.
 */
const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getLiveness',
  'GET /readyz': 'getReadiness',
  'GET /.well-known/presence/keys.json': 'getServiceKeys',
  'POST /v1/presence/challenge': 'createChallenge',
  'POST /v1/presence/verify': 'verifyPresence',
  'GET /v1/presence/challenges/:challengeId': 'getChallenge',
  'GET /v1/presence/challenges/:challengeId/receipt': 'getChallengeReceipt',
  'POST /v1/presence/credentials/options': 'createRegistrationOptions',
  'POST /v1/presence/credentials': 'registerCredential',
  'GET /v1/presence/credentials': 'listCredentials',
  'GET /v1/presence/credentials/:credentialId': 'getCredential',
  'DELETE /v1/presence/credentials/:credentialId': 'revokeCredential',
  'GET /v1/presence/receipts/:receiptId': 'getReceipt',
  'POST /v1/presence/receipts/verify': 'verifyReceipt',
  'GET /v1/presence/receipts': 'listReceipts',
  'GET /v1/presence/receipts/export': 'exportReceipts',
  'POST /v1/keys': 'createApiKey',
  'GET /v1/keys': 'listApiKeys',
  'GET /v1/keys/:keyId': 'getApiKey',
  'DELETE /v1/keys/:keyId': 'revokeApiKey',
  'POST /v1/keys/:keyId/rotate': 'rotateApiKey',
  'GET /v1/policy': 'getPolicy',
  'PUT /v1/policy': 'putPolicy',
  'GET /v1/billing/usage': 'getUsage',
  'GET /v1/billing/invoices': 'listInvoices',
  'GET /v1/billing/invoices/:invoiceId': 'getInvoice',
  'GET /v1/billing/invoices/:invoiceId.html': 'getInvoiceHtml',
  'POST /admin/v1/invoices/:invoiceId/pay': 'markInvoicePaid',
  'POST /admin/v1/invoices/:invoiceId/void': 'voidInvoice',
  'POST /admin/v1/billing/periods/:period/close': 'closeBillingPeriod',
  'GET /admin/v1/tenants/:tenantId/plan': 'getTenantPlan',
  'PUT /admin/v1/tenants/:tenantId/plan': 'setTenantPlan',
  'POST /v1/webhooks/endpoints': 'createWebhookEndpoint',
  'GET /v1/webhooks/endpoints': 'listWebhookEndpoints',
  'GET /v1/webhooks/endpoints/:endpointId': 'getWebhookEndpoint',
  'PATCH /v1/webhooks/endpoints/:endpointId': 'updateWebhookEndpoint',
  'DELETE /v1/webhooks/endpoints/:endpointId': 'deleteWebhookEndpoint',
  'POST /v1/webhooks/endpoints/:endpointId/rotate-secret': 'rotateWebhookSecret',
  'POST /v1/webhooks/endpoints/:endpointId/test': 'sendWebhookTest',
  'GET /v1/webhooks/endpoints/:endpointId/deliveries': 'listWebhookDeliveries',
  'POST /v1/webhooks/endpoints/:endpointId/recover': 'recoverWebhookDeliveries',
  'GET /v1/webhooks/deliveries/:deliveryId': 'getWebhookDelivery',
  'POST /v1/webhooks/deliveries/:deliveryId/redeliver': 'redeliverWebhook',
  'POST /v1/approvals': 'createApproval',
  'GET /v1/approvals': 'listApprovals',
  'GET /v1/approvals/:approvalId': 'getApproval',
  'POST /v1/approvals/:approvalId/cancel': 'cancelApproval',
  'POST /v1/presence/enrollment-links': 'createEnrollmentLink',
  'GET /approve/:token/state': 'getApprovalPageState',
  'POST /approve/:token/options': 'startApprovalCeremony',
  'POST /approve/:token/decide': 'decideApproval',
  'GET /enroll/:token/state': 'getEnrollmentPageState',
  'POST /enroll/:token/options': 'startLinkEnrollment',
  'POST /enroll/:token/finish': 'finishLinkEnrollment',
};

const pascal = (word: string) =>
  word
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The operationId of a route: listed above, or `<method><Path words>[By<Param>…]`. */
export function operationIdOf(method: string, url: string): string {
  const listed = OPERATION_IDS[`${method} ${url}`];
  if (listed !== undefined) return listed;
  const segments = url.split('/').filter((s) => s !== '' && s !== 'v1');
  const words = segments.filter((s) => !s.startsWith(':')).map(pascal);
  const params = segments.filter((s) => s.startsWith(':')).map((s) => `By${pascal(s.slice(1))}`);
  return `${method.toLowerCase()}${words.join('')}${params.join('')}`;
}
