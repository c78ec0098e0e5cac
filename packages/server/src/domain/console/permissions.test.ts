import { SCOPES } from '@presence/contract';
import { describe, expect, it } from 'vitest';
import { GATED_SCOPES, requireGrantableRole, scopesOfRole } from './permissions.js';
import { CONSOLE_ROLES, type ConsoleRole, type MemberRecord } from './ports.js';

const memberWith = (role: ConsoleRole): MemberRecord => ({
  id: 'mem_1',
  tenantId: 'ten_1',
  displayName: 'x',
  role,
  createdAt: 0,
  removedAt: null,
});

describe('the console role table', () => {
  it('gives owners and admins every scope, developers no policy or credential changes, auditors only reads and exports', () => {
    expect([...scopesOfRole('owner')].sort()).toEqual([...SCOPES].sort());
    expect([...scopesOfRole('admin')].sort()).toEqual([...SCOPES].sort());
    const developer = scopesOfRole('developer');
    expect(developer).not.toContain('policy:write');
    expect(developer).not.toContain('credentials:write');
    expect(developer).toContain('webhooks:manage');
    expect(developer).toContain('presence:verify');
    expect([...scopesOfRole('auditor')].sort()).toEqual(
      SCOPES.filter((s) => s.endsWith(':read') || s === 'receipts:export').sort(),
    );
    for (const role of CONSOLE_ROLES)
      expect(new Set(scopesOfRole(role)).size).toBe(scopesOfRole(role).length);
  });

  it('gates every scope that can change policy, keys, credentials, webhooks or approvals', () => {
    const writes = SCOPES.filter(
      (s) => !s.endsWith(':read') && !['receipts:export', 'challenges:write', 'presence:verify'].includes(s),
    );
    expect([...GATED_SCOPES].sort()).toEqual(writes.sort());
  });

  it('lets a role give only roles whose every permission it holds', () => {
    const order: ConsoleRole[] = ['auditor', 'developer', 'admin', 'owner'];
    for (const [i, giver] of order.entries()) {
      for (const [j, given] of order.entries()) {
        const give = () => requireGrantableRole(memberWith(giver), given);
        if (j <= i) expect(give, `${giver} → ${given}`).not.toThrow();
        else expect(give, `${giver} → ${given}`).toThrow(/may not give/);
      }
    }
  });
});
