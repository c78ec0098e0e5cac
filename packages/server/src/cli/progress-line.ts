/** Where progress goes: stderr, with `isTTY` when it is a terminal. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

const MiB = 1024 * 1024;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  if (bytes < MiB) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${(bytes / (1024 * MiB)).toFixed(2)} GiB`;
}

export function formatRate(bytes: number, ms: number): string {
  return `${formatBytes(ms > 0 ? (bytes * 1000) / ms : 0)}/s`;
}

/**
 * A download progress line: on a terminal it redraws one line with `\r` up to ten times a
 * second; elsewhere (logs, CI) it prints a full line every `lineIntervalMs`, so logs stay short.
 */
export class ProgressLine {
  private lastDraw = 0;
  private width = 0;

  constructor(
    private readonly out: ProgressOutput,
    private readonly label: string,
    private readonly total: number | null,
    private readonly now: () => number = Date.now,
    private readonly started = now(),
    private readonly lineIntervalMs = 5000,
  ) {}

  update(bytes: number): void {
    const t = this.now();
    const interval = this.out.isTTY ? 100 : this.lineIntervalMs;
    if (t - this.lastDraw < interval) return;
    this.lastDraw = t;
    this.draw(bytes, t);
  }

  /** Draws the final state and ends the line. */
  finish(bytes: number): void {
    this.draw(bytes, this.now());
    if (this.out.isTTY) this.out.write('\n');
  }

  private draw(bytes: number, t: number): void {
    const share = this.total ? ` (${Math.min(100, Math.floor((bytes * 100) / this.total))}%)` : '';
    const text = `${this.label}: ${formatBytes(bytes)}${share} at ${formatRate(bytes, t - this.started)}`;
    if (!this.out.isTTY) {
      this.out.write(`${text}\n`);
      return;
    }
    this.out.write(`\r${text.padEnd(this.width)}`);
    this.width = text.length;
  }
}
