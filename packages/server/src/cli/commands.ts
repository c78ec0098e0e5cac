import { adminCommands } from './admin-commands.js';
import { toolCommands } from './tool-commands.js';

export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
}

export const commands: Record<string, Command> = { ...adminCommands, ...toolCommands };
