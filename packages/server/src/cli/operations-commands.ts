import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import { composeDeps } from '../compose.js';
import { resealSecrets } from '../domain/master-key/reseal-secrets.js';
import { backupSqlite } from '../storage/backup-sqlite.js';
import type { Command } from './commands.js';

/** Operations that act on the local database: master-key custody and backups. */
export const operationsCommands: Record<string, Command> = {
  'master-key generate': {
    summary: 'print a new random master key (32 bytes, base64url) for PRESENCE_MASTER_KEY',
    run: async () => (process.stdout.write(`${randomBytes(32).toString('base64url')}\n`), 0),
  },
  'master-key reseal': {
    summary:
      're-seal every secret under PRESENCE_MASTER_KEY (PRESENCE_MASTER_KEY_PREVIOUS still opens old ones)',
    run: async () => {
      const config = loadConfig();
      const deps = await composeDeps(config);
      try {
        const counts = await resealSecrets(deps);
        for (const c of counts) process.stdout.write(`${JSON.stringify(c)}\n`);
        const note =
          config.previousMasterKey === undefined
            ? 'PRESENCE_MASTER_KEY_PREVIOUS is unset: nothing could have been sealed under another key'
            : 'every secret now opens with PRESENCE_MASTER_KEY; PRESENCE_MASTER_KEY_PREVIOUS can be dropped';
        process.stdout.write(`${note}\n`);
        return 0;
      } finally {
        await deps.store.close();
      }
    },
  },
  backup: {
    summary:
      '--to FILE: online backup of the SQLite database (PostgreSQL: use pg_dump, see docs/operations.md)',
    run: async (args) => {
      const { values } = parseArgs({ args, options: { to: { type: 'string' } } });
      if (values.to === undefined) throw new Error('backup needs --to FILE');
      const config = loadConfig();
      if (config.databaseUrl !== undefined) {
        process.stderr.write(
          'DATABASE_URL is PostgreSQL: back it up with pg_dump -Fc (docs/operations.md)\n',
        );
        return 2;
      }
      const { pages } = await backupSqlite(config.sqlitePath, values.to);
      process.stdout.write(`backed up ${config.sqlitePath} to ${values.to} (${pages} pages)\n`);
      return 0;
    },
  },
};
