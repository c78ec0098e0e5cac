/**
 * Running our programs as a reader of the docs would, from their own shell: `shellEnv` is that
 * shell's environment, and `waitForOutput` waits for a line a started process prints.
 */

/** A developer's shell: nothing of ours set (npm test's npm_* settings must not reach their npm), plus `extra`. */
export function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(PRESENCE_|DATABASE_URL$|NODE_ENV$|REDIS_URL$|PORT$|HOST$|npm_)/i.test(k),
    ),
  );
  return { ...env, ...extra };
}

/** The first match of `pattern` in `read()`, polled every 50 ms; throws with all that was read after `timeoutMs`. */
export async function waitForOutput(
  read: () => string,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = read().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
