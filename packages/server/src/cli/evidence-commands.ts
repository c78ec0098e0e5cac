import { runVerifyPackCli } from '@presence/sdk/node';
import type { Command } from './commands.js';

/** Evidence commands that run offline, without a database or the service. */
export const evidenceCommands: Record<string, Command> = {
  'verify-pack': {
    summary:
      '<pack.zip> [--key pub.pem]... [--keys keys.json] [--since checkpoint.txt]: check an export pack offline',
    run: (args) => runVerifyPackCli(args, (text) => process.stdout.write(text)),
  },
};
