/**
 * The built CLI as a running child process, for commands that wait (`presence approvals request
 * --wait`): the test reads what it printed first (the link), acts (approves, rejects, cancels),
 * then awaits its end. `runCli` in server-process.ts runs a command that does not wait.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliOutcome {
  code: number | null;
  out: string;
  err: string;
}

export interface RunningCli {
  /** Resolves with the first match of `pattern` in stdout; rejects if the process ends first. */
  stdoutMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** The same for stderr. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** The first complete line the command wrote to stdout. */
  firstLine(): Promise<string>;
  /** The exit code and everything written, once the process ended. */
  done: Promise<CliOutcome>;
}

/** Spawns `file ...args` (default: node and the built `presence` CLI) with `env` added to ours. */
export function startCli(
  args: string[],
  env: Record<string, string>,
  file: string = process.execPath,
  prefix: string[] = [CLI],
): RunningCli {
  const child = spawn(file, [...prefix, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let ended = false;
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const check of waiters) check();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    for (const check of waiters) check();
  });
  const done = new Promise<CliOutcome>((resolve) =>
    child.on('close', (code) => {
      ended = true;
      for (const check of waiters) check();
      resolve({ code, out, err });
    }),
  );
  const match = (pattern: RegExp, stream: 'out' | 'err') =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const found = pattern.exec(stream === 'out' ? out : err);
        if (found) resolve(found);
        else if (ended) reject(new Error(`ended without printing ${pattern}: ${out}\n${err}`));
        else return;
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    stdoutMatch: (pattern) => match(pattern, 'out'),
    stderrMatch: (pattern) => match(pattern, 'err'),
    firstLine: () => match(/^(.*)\n/, 'out').then((m) => m[1]!),
    done,
  };
}
