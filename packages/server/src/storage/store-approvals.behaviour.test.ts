/**
 * The Store's approval repos (docs/approvals.md): one decision per approver, compare-and-set of the
 * final status (first wins), at most one approval set, single-use enrollment links, one live
 * uniqueActions claim per action, tenant scoping; and the quorum recorded by concurrent decisions
 * through the domain over the real store. Same suite for both dialects.
 */
import { expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ApprovalRecord, ApproverRecord, EnrollmentLinkRecord } from '../domain/approvals/ports.js';
import { recordApprovalDecision } from '../domain/approvals/record-approval-decision.js';
import { UniqueViolation } from '../domain/ports.js';
import { depsFromStore } from '../compose.js';
import { seedTenant, T0, TestRecords } from './test-records.js';
import { describeEachDialect, useTestStore } from './each-dialect.js';

const hex = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

describeEachDialect(
  (dialect) => `store behaviour: approvals (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect);
    const records = new TestRecords();

    const approval = (tenantId: string, o: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
      id: records.id('apr'),
      tenantId,
      actionJson: '{"a":1}',
      actionHashHex: hex(1),
      title: null,
      required: 2,
      initiator: null,
      purpose: null,
      status: 'pending',
      tokenHash: randomBytes(32).toString('hex'),
      bindingCode: 'ABCDEF',
      version: 0,
      createdAt: T0,
      expiresAt: T0 + 60_000,
      decidedAt: null,
      ...o,
    });
    const approvers = (a: ApprovalRecord, subjects: string[]): ApproverRecord[] =>
      subjects.map((subject, position) => ({
        approvalId: a.id,
        tenantId: a.tenantId,
        subject,
        position,
        decision: null,
        receiptId: null,
        receiptHashHex: null,
        decidedAt: null,
      }));
    async function seeded(subjects = ['s1', 's2', 's3'], o: Partial<ApprovalRecord> = {}) {
      const { tenant } = await seedTenant(db.store, records);
      const a = approval(tenant.id, o);
      await db.store.approvals.approvals.insert(a);
      await db.store.approvals.approvers.insertAll(approvers(a, subjects));
      return a;
    }
    const decision = (n: number) => ({
      decision: 'approved' as const,
      receiptId: records.id('rct'),
      receiptHashHex: hex(n),
      at: T0 + n,
    });

    it('one decision per approver, even from concurrent calls; listed in the order given', async () => {
      const a = await seeded();
      const results = await Promise.all(
        [1, 2, 3, 4].map((n) => db.store.approvals.approvers.decide(a.tenantId, a.id, 's2', decision(n))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const rows = await db.store.approvals.approvers.listFor(a.tenantId, [a.id]);
      expect(rows.map((r) => r.subject)).toEqual(['s1', 's2', 's3']);
      expect(rows.map((r) => r.decision)).toEqual([null, 'approved', null]);
      expect(await db.store.approvals.approvers.decide(a.tenantId, a.id, 'nobody', decision(9))).toBe(false);
    });

    it('the final status is a compare-and-set: of racing finishes exactly one wins', async () => {
      const a = await seeded();
      const results = await Promise.all(
        (['approved', 'rejected', 'cancelled', 'expired'] as const).map((s) =>
          db.store.approvals.approvals.finish(a.tenantId, a.id, s, T0 + 5),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await db.store.approvals.approvals.get(a.tenantId, a.id);
      expect(stored?.decidedAt).toBe(T0 + 5);
      expect(await db.store.approvals.approvals.lockPending(a.tenantId, a.id, T0 + 6)).toBe(false);
    });

    it('lockPending refuses an expired approval; the expiry scan finds it', async () => {
      const a = await seeded(['s1'], { expiresAt: T0 + 10 });
      expect(await db.store.approvals.approvals.lockPending(a.tenantId, a.id, T0 + 9)).toBe(true);
      expect(await db.store.approvals.approvals.lockPending(a.tenantId, a.id, T0 + 10)).toBe(false);
      expect(await db.store.approvals.approvals.listDueExpiries(T0 + 10, 1000)).toContainEqual({
        tenantId: a.tenantId,
        id: a.id,
      });
      expect((await db.store.approvals.approvals.get(a.tenantId, a.id))?.version).toBe(1);
    });

    it('at most one approval set per approval', async () => {
      const a = await seeded();
      const set = {
        approvalId: a.id,
        tenantId: a.tenantId,
        canonicalJson: '{}',
        hashHex: hex(3),
        kid: 'k1',
        signatureB64Url: 'sig',
        decidedAt: T0 + 1,
      };
      await db.store.approvals.sets.insert(set);
      await expect(db.store.approvals.sets.insert({ ...set, hashHex: hex(4) })).rejects.toThrow(
        UniqueViolation,
      );
      expect(await db.store.approvals.sets.get(a.tenantId, a.id)).toEqual(set);
      const page = await db.store.approvals.sets.listDecided(
        a.tenantId,
        { from: T0, to: T0 + 2 },
        { limit: 10 },
      );
      expect(page).toEqual([set]);
    });

    it('tenant scoping: another tenant reads none of it', async () => {
      const a = await seeded();
      const { tenant: other } = await seedTenant(db.store, records);
      expect(await db.store.approvals.approvals.get(other.id, a.id)).toBeUndefined();
      expect(await db.store.approvals.approvers.listFor(other.id, [a.id])).toEqual([]);
      expect(await db.store.approvals.approvals.list(other.id, {}, { limit: 10 })).toEqual([]);
      expect(await db.store.approvals.approvals.lockPending(other.id, a.id, T0)).toBe(false);
      expect(await db.store.approvals.approvers.decide(other.id, a.id, 's1', decision(1))).toBe(false);
      expect(await db.store.approvals.approvals.finish(other.id, a.id, 'cancelled', T0)).toBe(false);
    });

    it('an enrollment link is consumed once, even by concurrent calls, and never after it expires', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const link: EnrollmentLinkRecord = {
        id: records.id('enl'),
        tenantId: tenant.id,
        tokenHash: randomBytes(32).toString('hex'),
        subject: 'alice',
        displayName: null,
        registrationId: null,
        createdAt: T0,
        expiresAt: T0 + 100,
        usedAt: null,
      };
      await db.store.approvals.enrollmentLinks.insert(link);
      expect(await db.store.approvals.enrollmentLinks.consume(link.id, T0 + 100)).toBe(false);
      const results = await Promise.all(
        [1, 2, 3].map(() => db.store.approvals.enrollmentLinks.consume(link.id, T0 + 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await db.store.approvals.enrollmentLinks.attachRegistration(link.id, 'reg_x')).toBe(false);
    });

    it('uniqueActions claims: one live holder per action; a lapsed claim is taken over', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const repo = db.store.approvals.uniqueActions;
      const results = await Promise.all(
        ['h1', 'h2', 'h3'].map((holderId) => repo.claim(tenant.id, hex(7), { holderId, until: T0 + 50 }, T0)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await repo.claim(tenant.id, hex(7), { holderId: 'h4', until: T0 + 90 }, T0 + 50)).toBe(true);
      expect(await repo.holder(tenant.id, hex(7))).toEqual({ holderId: 'h4', until: T0 + 90 });
      await repo.release(tenant.id, hex(7), 'h1');
      expect((await repo.holder(tenant.id, hex(7)))?.holderId).toBe('h4');
      await repo.release(tenant.id, hex(7), 'h4');
      expect(await repo.holder(tenant.id, hex(7))).toBeUndefined();
    });

    it('quorum under concurrent decisions: approved once, exactly one set naming both approvals', async () => {
      const deps = await depsFromStore(db.store, randomBytes(32), { now: () => T0 + 1000 });
      const a = await seeded(['q1', 'q2', 'q3'], { expiresAt: T0 + 3_600_000 });
      const receipt = (subject: string, n: number) => ({
        subject,
        receiptId: records.id('rct'),
        receiptHashHex: hex(n),
      });
      const outcomes = await Promise.all(
        ['q1', 'q2', 'q3'].map((subject, n) =>
          recordApprovalDecision(deps, a, 'approve', receipt(subject, n)).catch((e: Error) => e),
        ),
      );
      const recorded = outcomes.filter((o) => o === 'recorded');
      expect(recorded).toHaveLength(2);
      expect(outcomes.filter((o) => o instanceof Error).map((e) => (e as { code?: string }).code)).toEqual([
        'approval_not_pending',
      ]);
      const stored = await db.store.approvals.approvals.get(a.tenantId, a.id);
      expect(stored?.status).toBe('approved');
      const set = await db.store.approvals.sets.get(a.tenantId, a.id);
      expect(JSON.parse(set!.canonicalJson).approvals).toHaveLength(2);
    });
  },
);
