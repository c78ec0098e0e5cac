import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import { consoleOptions } from '../compose.js';
import { CONSOLE_ROLES, type ConsoleRole } from '../domain/console/ports.js';
import { createInvite } from '../domain/console/create-invite.js';
import type { Command } from './commands.js';
import { withCliDeps } from './with-cli-deps.js';

function isRole(value: string | undefined): value is ConsoleRole {
  return (CONSOLE_ROLES as readonly string[]).includes(value ?? '');
}

export const consoleCommands: Record<string, Command> = {
  'console invite': {
    summary: `--tenant ID --role ${CONSOLE_ROLES.join('|')} [--json]: a single-use console invite link`,
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: { tenant: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } },
      });
      if (!values.tenant || !isRole(values.role)) {
        throw new Error(`console invite needs --tenant and --role (one of ${CONSOLE_ROLES.join(', ')})`);
      }
      const config = loadConfig();
      const tenantId = values.tenant;
      const role = values.role;
      const { inviteUrl, invite } = await withCliDeps(
        (deps) => createInvite(deps, consoleOptions(config), { tenantId, role, createdBy: null }),
        config,
      );
      process.stdout.write(
        values.json
          ? `${JSON.stringify({ inviteUrl })}\n`
          : `Invite for a new ${invite.role} (single use, until ${new Date(invite.expiresAt).toISOString()}):\n\n  ${inviteUrl}\n\n`,
      );
      return 0;
    },
  },
};
