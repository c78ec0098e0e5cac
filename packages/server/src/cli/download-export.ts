import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { ExportReceiptsQuery, PresenceClient } from '@presence/sdk';
import { ProgressLine, type ProgressOutput } from './progress-line.js';
import { inspectPack } from './read-zip-manifest.js';

export interface ExportDownloadRequest {
  client: PresenceClient;
  query: ExportReceiptsQuery;
  out: string;
  /** Replace an existing file at `out`. */
  force: boolean;
  progress: ProgressOutput;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

export interface ExportSummary {
  file: string;
  bytes: number;
  durationMs: number;
  sha256: string;
  /** From manifest.json; null when the pack has no readable manifest. */
  receipts: number | null;
  requestId: string | null;
}

/**
 * Streams an export pack to a temporary file next to `out` (hashing as it goes), syncs it, checks
 * it is a whole zip, then renames it into place: `out` is either the complete pack or untouched.
 */
export async function downloadExport(request: ExportDownloadRequest): Promise<ExportSummary> {
  const now = request.now ?? Date.now;
  const target = resolve(request.out);
  if (!request.force && existsSync(target)) throw new Error(`${target} exists; pass --force to replace it`);
  const started = now();
  const download = await request.client.receipts.export(request.query, { signal: request.signal });
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  const progress = new ProgressLine(
    request.progress,
    `export ${basename(target)}`,
    download.contentLength,
    now,
    started,
  );
  try {
    const { bytes, sha256 } = await writeStream(download.body, temp, progress);
    progress.finish(bytes);
    if (download.contentLength !== null && bytes !== download.contentLength) {
      throw new Error(`the export ended after ${bytes} of ${download.contentLength} bytes`);
    }
    const pack = await inspectPack(temp);
    if (!pack.complete) throw new Error('the export ended early: the file is not a complete zip');
    await rename(temp, target);
    const count = (pack.manifest?.counts as { receipts?: unknown } | undefined)?.receipts;
    return {
      file: target,
      bytes,
      durationMs: now() - started,
      sha256,
      receipts: typeof count === 'number' ? count : null,
      requestId: download.requestId,
    };
  } finally {
    await rm(temp, { force: true });
  }
}

async function writeStream(body: ReadableStream<Uint8Array>, file: string, progress: ProgressLine) {
  const handle = await open(file, 'wx', 0o600);
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of Readable.fromWeb(body as NodeReadableStream<Uint8Array>)) {
      const buffer = chunk as Buffer;
      hash.update(buffer);
      await handle.write(buffer);
      bytes += buffer.length;
      progress.update(bytes);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}
