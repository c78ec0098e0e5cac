import type { Migration } from '../migration.js';
import * as core from './0001-core.js';
import * as evidence from './0002-evidence.js';
import * as webhooks from './0003-webhooks.js';
import * as billing from './0004-billing.js';
import * as idempotency from './0005-idempotency.js';
import * as receiptLog from './0007-receipt-log.js';
import * as retention from './0010-retention.js';
import * as observability from './0012-observability.js';
import * as consoleTables from './0009-console.js';
import * as receiptLogClaims from './0013-receipt-log-claims.js';
import * as approvals from './0014-approvals.js';
import * as singleUse from './0015-single-use.js';
import * as auditEvents from './0016-audit-events.js';
import * as approvalRetention from './0017-approval-retention.js';
import * as consoleChanges from './0018-console-changes.js';
import * as keyCreators from './0019-key-creators.js';

/** Every sqlite migration, in order. Add new ones at the end; never edit an applied one. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  { id: '0001-core', up: core.up },
  { id: '0002-evidence', up: evidence.up },
  { id: '0003-webhooks', up: webhooks.up },
  { id: '0004-billing', up: billing.up },
  { id: '0005-idempotency', up: idempotency.up },
  { id: '0007-receipt-log', up: receiptLog.up },
  { id: '0010-retention', up: retention.up },
  { id: '0012-observability', up: observability.up },
  { id: '0009-console', up: consoleTables.up },
  { id: '0013-receipt-log-claims', up: receiptLogClaims.up },
  { id: '0014-approvals', up: approvals.up },
  { id: '0015-single-use', up: singleUse.up },
  { id: '0016-audit-events', up: auditEvents.up },
  { id: '0017-approval-retention', up: approvalRetention.up },
  { id: '0018-console-changes', up: consoleChanges.up },
  { id: '0019-key-creators', up: keyCreators.up },
];
