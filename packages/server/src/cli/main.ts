#!/usr/bin/env node
import { commands } from './commands.js';

/** `presence <command> [subcommand] [options]`: see `presence help`. */
async function main(argv: string[]): Promise<number> {
  const [first, second] = argv;
  const twoWord = first !== undefined && second !== undefined ? commands[`${first} ${second}`] : undefined;
  const command = twoWord ?? (first === undefined ? undefined : commands[first]);
  if (!command || first === 'help') {
    process.stdout.write(usage());
    return first === undefined || first === 'help' ? 0 : 2;
  }
  return command.run(argv.slice(twoWord ? 2 : 1));
}

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  presence ${name.padEnd(22)} ${c.summary}`);
  return `Usage:\n${lines.join('\n')}\n`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`presence: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
