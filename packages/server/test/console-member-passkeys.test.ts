/**
 * A member's new console passkey, on both databases: a session alone cannot add one (a stolen
 * session cookie would otherwise enroll the thief's passkey and pass every gate), so a passkey the
 * member already has approves it first, and only for the member itself.
 */
import { expect, it } from 'vitest';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { ConsoleClient, joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { FLAG, SoftAuthenticator } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

describeEachDialect('console member passkeys behind the passkey', (dialect) => {
  const s = useTestService(dialect);
  const registrations = async () => (await s.testStore.rows('registrations')).length;
  const member = (role: ConsoleRole) => joinedMember(s, role);
  const newDevice = async () => {
    const settings = await s.composed.consoleSettings();
    return new SoftAuthenticator(new URL(settings.origin).hostname, settings.origin);
  };

  it('a session alone gets no registration options; a verified passkey approval does', async () => {
    const { client, memberId } = await member('owner');
    const before = await registrations();
    const plain = await client.post('/console/api/passkeys/options', {});
    expect(plain.status).toBe(404);
    const device = await newDevice();
    const denied = await client.addPasskey(device, memberId, FLAG.UP);
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toContain('USER_NOT_VERIFIED');
    expect(await registrations()).toBe(before);

    const added = await client.addPasskey(device, memberId);
    expect(added.status, added.body).toBe(200);
    const elsewhere = new ConsoleClient(s.composed.app, await s.composed.consoleSettings(), device);
    expect((await elsewhere.signIn()).status).toBe(200);
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 20 });
    expect(audit.find((a) => a.action === 'member_passkey.add_started')?.receiptId).toMatch(/^rct_/);
  });

  it('no member, not even an owner, starts a passkey for another member', async () => {
    const { client: owner } = await member('owner');
    const { memberId: developerId } = await member('developer');
    const before = await registrations();
    const refused = await owner.addPasskey(await newDevice(), developerId);
    expect(refused.status).toBe(403);
    expect(await registrations()).toBe(before);
  });
});
