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

/**
 * Runs each job in its own loop: one batch at a time, never overlapping itself, rescheduled
 * immediately while it reports more work, otherwise after its interval. A failing batch is
 * logged and retried on the next tick; it never stops the loop or the process.
 */
export function runJobs(jobs: readonly Job[], logger: Logger | false): RunningJobs {
  let stopped = false;
  const loops = jobs.map((job) => {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    const schedule = (delay: number) => {
      if (stopped) return;
      clearTimeout(timer);
      timer = setTimeout(tick, delay);
      timer.unref();
    };
    const tick = () => {
      if (running || stopped) return;
      running = job
        .run()
        .then(
          (more) => schedule(more ? 0 : job.intervalMs),
          (error: unknown) => {
            if (logger) logger.error({ err: error, job: job.name }, 'background job failed');
            schedule(job.intervalMs);
          },
        )
        .finally(() => {
          running = undefined;
        });
    };
    schedule(0);
    return {
      name: job.name,
      wake: () => (running ? undefined : schedule(0)),
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
