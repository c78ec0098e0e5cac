import { readFileSync } from 'node:fs';

/**
 * Every variable that can hold a secret. Each also has a `<NAME>_FILE` variant naming a file that
 * holds the value (a Kubernetes or Docker secret mounted as a file); the file's content, less one
 * trailing newline, is the value.
 */
export const SECRET_VARIABLES = [
  'PRESENCE_MASTER_KEY',
  'PRESENCE_MASTER_KEY_PREVIOUS',
  'PRESENCE_ADMIN_TOKEN',
  'PRESENCE_METRICS_TOKEN',
  'DATABASE_URL',
  'REDIS_URL',
] as const;

/** `fail(message)` makes the error to throw: setting both forms, or an unreadable file, stops start-up. */
export function readSecretFiles(
  source: Record<string, string | undefined>,
  fail: (message: string) => Error,
): Record<string, string | undefined> {
  const resolved = { ...source };
  for (const name of SECRET_VARIABLES) {
    const file = source[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (source[name] !== undefined) throw fail(`set ${name} or ${name}_FILE, not both`);
    try {
      resolved[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw fail(`${name}_FILE: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  return resolved;
}
