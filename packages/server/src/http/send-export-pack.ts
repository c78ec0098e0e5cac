/**
 * Streams an export pack as a zip: the domain yields the files, yazl deflates them into the
 * response. Backpressure runs end to end (the socket → yazl → each file's stream → the domain's
 * batch reads), so memory stays flat. A client that disconnects aborts the domain's reads and
 * the export is marked aborted; a pack is billed only when the response finished.
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';
import { ZipFile } from 'yazl';
import type { ExportPack } from '../domain/exports/start-export.js';
import type { PackEntry } from '../domain/exports/pack-state.js';
import type { ExportOutcome } from './observe-export.js';

/** Deflate level 1: the receipts are mostly base64 of random bytes, where higher levels gain little. */
const COMPRESSION_LEVEL = 1;
const STREAM_HIGH_WATER_MARK = 256 * 1024;

export function sendExportPack(
  reply: FastifyReply,
  pack: ExportPack,
  controller: AbortController,
  observe: (outcome: ExportOutcome) => void = () => undefined,
) {
  const zip = new ZipFile();
  // yazl's typings say NodeJS.ReadableStream; at run time it is a PassThrough.
  const output = zip.outputStream as unknown as Readable;
  let current: Readable | undefined;
  let done = false;
  let sent = false;
  const settle = (status: 'aborted' | 'failed') => {
    observe(status);
    return pack.abort(status).catch((e: unknown) => {
      reply.log.error({ err: e, exportId: pack.exportId }, 'could not record the end of an export');
    });
  };
  const disconnected = () => {
    if (done || sent || reply.raw.writableFinished || controller.signal.aborted) return;
    controller.abort(new Error('the client disconnected'));
    current?.destroy();
    output.destroy();
    void settle('aborted');
  };
  // A failing file stream also surfaces here; the pump below handles it through `finished`.
  zip.on('error', () => undefined);
  reply.raw.once('finish', () => (sent = true));
  reply.raw.once('close', disconnected);
  if (reply.raw.destroyed) disconnected();
  const pump = async () => {
    for await (const entry of pack.entries) {
      controller.signal.throwIfAborted();
      current = addEntry(zip, entry, pack.generatedAt);
      await finished(current);
    }
    zip.end();
    await finished(reply.raw);
    done = true;
    observe('completed');
    await pack.complete();
  };
  pump().catch(async (error: unknown) => {
    if (controller.signal.aborted) return;
    reply.log.error({ err: error, exportId: pack.exportId }, 'export failed');
    output.destroy();
    reply.raw.destroy();
    await settle('failed');
  });
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', `attachment; filename="presence-export-${pack.exportId}.zip"`)
    .header('x-presence-export-id', pack.exportId)
    .send(output);
}

function addEntry(zip: ZipFile, entry: PackEntry, generatedAt: number): Readable {
  const stream = Readable.from(entry.body, { objectMode: false, highWaterMark: STREAM_HIGH_WATER_MARK });
  zip.addReadStream(stream, entry.name, {
    mtime: new Date(generatedAt),
    compressionLevel: COMPRESSION_LEVEL,
  });
  return stream;
}
