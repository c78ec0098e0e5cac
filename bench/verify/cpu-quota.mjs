// A CPU cap for one server process of bench/verify's scale phase: a Linux CFS quota in a cgroup of
// its own (the cgroup v2 `cpu.max` where the cpu controller is on the v2 hierarchy, else the v1 cpu
// controller's `cpu.cfs_quota_us`). Capping every server process at a fraction of a core leaves the
// rest of a small machine to PostgreSQL and the load generator, so "does a second process add
// throughput?" is asked of the design (its per-tenant rows and locks), not of spare cores.
// Needs write access to the cgroup file system (root, or a delegated subtree); fails clearly if not.
// Also here: pinning a server process to one CPU (--scale-pin), with util-linux `taskset`.
/* global process, console */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// A short period keeps a capped process's pauses short (period − quota at a time), so it behaves
// more like a slower core than like a fast one that stops. The kernel's least quota is 1 ms.
const PERIOD_US = 4_000;
const MIN_QUOTA_US = 1_000;

/** The hierarchy to use: { root, v2 } or throws with the reason. */
function cpuHierarchy() {
  for (const root of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
    const controllers = join(root, 'cgroup.controllers');
    if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu'))
      return { root, v2: true };
  }
  if (existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')) return { root: '/sys/fs/cgroup/cpu', v2: false };
  throw new Error('--scale-cpu-quota: no cgroup cpu controller found (cgroup v2 cpu.max or v1 cpu)');
}

/**
 * Caps process `pid` (all its threads) at `cores` of CPU, in CFS periods of `periodMs` (lengthened
 * where needed so that the quota is at least MIN_QUOTA_US). Returns { cores, throttled, release }:
 * the cap actually set; the CFS counters so far ({ periods, throttled }: periods in which the process
 * ran, and those in which it used up its quota and waited); release() moves the process back and
 * removes the cgroup.
 */
export function capCpu(pid, cores, label, periodMs = PERIOD_US / 1000) {
  if (!(cores > 0 && cores <= 64)) throw new Error('--scale-cpu-quota must be in (0, 64] cores');
  const { root, v2 } = cpuHierarchy();
  const dir = join(root, `presence-bench-${process.pid}-${pid}`);
  if (!(periodMs >= 1 && periodMs <= 1000)) throw new Error('--scale-cpu-period-ms must be in [1, 1000]');
  const periodUs = Math.max(Math.round(periodMs * 1000), Math.ceil(MIN_QUOTA_US / cores));
  const quotaUs = Math.round(cores * periodUs);
  try {
    mkdirSync(dir);
    if (v2) writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${periodUs}`);
    else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(periodUs));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quotaUs));
    }
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  } catch (error) {
    throw new Error(`--scale-cpu-quota: cannot cap ${label} in ${dir}: ${error.message}`);
  }
  const throttled = () => {
    const stat = readFileSync(join(dir, 'cpu.stat'), 'utf8');
    const field = (name) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1] ?? NaN);
    return { periods: field('nr_periods'), throttled: field('nr_throttled') };
  };
  return {
    cores: quotaUs / periodUs,
    throttled,
    release() {
      try {
        writeFileSync(join(root, 'cgroup.procs'), String(pid));
      } catch {
        // the process has exited: the cgroup is empty already
      }
      try {
        rmdirSync(dir);
      } catch (error) {
        console.error(`--scale-cpu-quota: could not remove ${dir}: ${error.message}`);
      }
    },
  };
}

/**
 * Pins process `pid` (every thread it has now; threads it starts later inherit the mask) to CPU
 * `cpu` with util-linux `taskset`, so that two capped server processes each have a core of their
 * own, as two instances on two hosts would. Returns release(), which gives it back the CPUs it had.
 */
export function pinCpu(pid, cpu, label) {
  const taskset = (...args) => {
    const result = spawnSync('taskset', ['--cpu-list', ...args, String(pid)], { encoding: 'utf8' });
    if (result.error !== undefined) return { error: result.error.message };
    return result.status === 0 ? { out: result.stdout } : { error: result.stderr.trim() };
  };
  // "pid 123's current affinity list: 0,1"
  const before = taskset('--pid');
  const pinned = before.error ?? taskset('--all-tasks', '--pid', String(cpu)).error;
  if (pinned !== undefined) throw new Error(`--scale-pin: cannot pin ${label} to CPU ${cpu}: ${pinned}`);
  const cpus = before.out.trim().split(': ').pop();
  return {
    release() {
      taskset('--all-tasks', '--pid', cpus); // fails only when the process has exited
    },
  };
}
