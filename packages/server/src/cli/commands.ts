import { adminCommands } from './admin-commands.js';
import { approvalCommands } from './approval-commands.js';
import { billingCommands } from './billing-commands.js';
import { consoleCommands } from './console-commands.js';
import { evidenceCommands } from './evidence-commands.js';
import { operationsCommands } from './operations-commands.js';
import { logCommands } from './log-commands.js';
import { remoteCommands } from './remote-commands.js';
import { toolCommands } from './tool-commands.js';

export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
}

export const commands: Record<string, Command> = {
  ...adminCommands,
  ...toolCommands,
  ...remoteCommands,
  ...approvalCommands,
  ...billingCommands,
  ...evidenceCommands,
  ...operationsCommands,
  ...logCommands,
  ...consoleCommands,
};
