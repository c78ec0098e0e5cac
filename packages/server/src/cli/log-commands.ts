import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import { composeDeps } from '../compose.js';
import { setLogWitnesses } from '../domain/receipt-log/set-log-witnesses.js';
import type { Command } from './commands.js';

/** Receipt-log administration, local (through compose, like `tenant create`). */
export const logCommands: Record<string, Command> = {
  'log witnesses': {
    summary:
      '--tenant ID --vkey WITNESS_VKEY [--vkey …] --require N [--json]: the witnesses a pack checkpoint must carry N cosignatures of',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          tenant: { type: 'string' },
          vkey: { type: 'string', multiple: true },
          require: { type: 'string' },
          json: { type: 'boolean' },
        },
      });
      if (!values.tenant || values.require === undefined || !/^[0-9]+$/.test(values.require)) {
        throw new Error('log witnesses needs --tenant ID and --require N (0 to lift the requirement)');
      }
      const deps = await composeDeps(loadConfig());
      try {
        const settings = await setLogWitnesses(deps, values.tenant, {
          witnessKeys: values.vkey ?? [],
          required: Number(values.require),
        });
        const out = {
          tenantId: settings.tenantId,
          witnessKeys: settings.witnessKeys,
          required: settings.required,
        };
        process.stdout.write(values.json ? `${JSON.stringify(out)}\n` : `${JSON.stringify(out, null, 2)}\n`);
        return 0;
      } finally {
        await deps.store.close();
      }
    },
  },
};
