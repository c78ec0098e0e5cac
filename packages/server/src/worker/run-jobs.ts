import type { Logger } from 'pino';

/** A background job: `run` is called every `intervalMs`, and at once when something wakes it. */
export interface Job {
  name: string;
  intervalMs: number;
  /** Does one bounded batch of work; returns true when there may be more to do right away. */
  run(): Promise<boolean>;
}

export interface RunningJobs {
  /** Asks a job to run as soon as possible (e.g. right after a commit that gave it work). */
  wake(name: string): void;
  /** Stops scheduling and waits for running batches to finish. */
  stop(): Promise<void>;
}

export interface BackoffOptions {
  /** First retry delay after a failure; doubles per consecutive failure. */
  baseMs: number;
  maxMs: number;
  /** A uniform number in [0, 1), for jitter (injected so tests are deterministic). */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, random: Math.random };

/** "Full jitter": a uniform delay up to the capped exponential, never below a tenth of the base. */
export function backoffDelay(failures: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.max(options.baseMs / 10, Math.floor(ceiling * options.random()));
}

/**
 * Runs each job in its own loop: one batch at a time, never overlapping itself, rescheduled
 * immediately while it reports more work, otherwise after its interval. A failing job backs off
 * exponentially with jitter and logs once when it starts failing and once when it recovers (not
 * once per attempt); it never stops the loop or the process.
 */
export function runJobs(
  jobs: readonly Job[],
  logger: Logger | false,
  backoff: BackoffOptions = DEFAULT_BACKOFF,
): RunningJobs {
  let stopped = false;
  const loops = jobs.map((job) => {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let failures = 0;
    let failingSince = 0;
    const schedule = (delay: number) => {
      if (stopped) return;
      clearTimeout(timer);
      timer = setTimeout(tick, delay);
      timer.unref();
    };
    const succeeded = (more: boolean) => {
      if (failures > 0 && logger) {
        logger.info(
          { job: job.name, failures, downMs: Date.now() - failingSince },
          'background job recovered',
        );
      }
      failures = 0;
      schedule(more ? 0 : job.intervalMs);
    };
    const failed = (error: unknown) => {
      if (failures === 0) {
        failingSince = Date.now();
        if (logger) logger.error({ err: error, job: job.name }, 'background job failing; backing off');
      }
      failures++;
      schedule(backoffDelay(failures, backoff));
    };
    const tick = () => {
      if (running || stopped) return;
      running = job
        .run()
        .then(succeeded, failed)
        .finally(() => {
          running = undefined;
        });
    };
    schedule(0);
    return {
      name: job.name,
      // A failing job keeps its back-off: waking it would defeat it.
      wake: () => (running || failures > 0 ? undefined : schedule(0)),
      stop: async () => {
        clearTimeout(timer);
        await running;
      },
    };
  });
  return {
    wake(name) {
      loops.find((l) => l.name === name)?.wake();
    },
    async stop() {
      stopped = true;
      await Promise.all(loops.map((l) => l.stop()));
    },
  };
}
