/**
 * A small read-only view of a zip for the pack verifier, over yauzl (which refuses absolute and
 * `..` paths and checks each entry's declared size and CRC-32 while reading).
 */
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface ZipView {
  /** Entry names in central-directory order (duplicates kept, so a verifier can see them). */
  names: string[];
  /** The entry's uncompressed bytes; refuses entries larger than `maxBytes`. */
  read(name: string, maxBytes: number): Promise<Buffer>;
  stream(name: string): Promise<Readable>;
  close(): void;
}

export async function openZip(source: string | Uint8Array): Promise<ZipView> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    const options = { lazyEntries: true, autoClose: false, decodeStrings: true };
    const done = (error: Error | null, z?: yauzl.ZipFile) => (error || !z ? reject(error) : resolve(z));
    if (typeof source === 'string') yauzl.open(source, options, done);
    else yauzl.fromBuffer(Buffer.from(source.buffer, source.byteOffset, source.byteLength), options, done);
  });
  try {
    const entries = await readEntries(zip);
    return view(zip, entries);
  } catch (error) {
    zip.close();
    throw error;
  }
}

function readEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

function view(zip: yauzl.ZipFile, entries: yauzl.Entry[]): ZipView {
  const byName = new Map(entries.map((e) => [e.fileName, e]));
  const stream = (name: string) =>
    new Promise<Readable>((resolve, reject) => {
      const entry = byName.get(name);
      if (!entry) return reject(new Error(`${name} is not in the zip`));
      zip.openReadStream(entry, (error, s) => (error || !s ? reject(error) : resolve(s)));
    });
  return {
    names: entries.map((e) => e.fileName),
    stream,
    async read(name, maxBytes) {
      const entry = byName.get(name);
      if (entry && entry.uncompressedSize > maxBytes) {
        throw new Error(
          `${name} declares ${entry.uncompressedSize} bytes, more than the ${maxBytes} allowed`,
        );
      }
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of await stream(name)) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) throw new Error(`${name} is larger than ${maxBytes} bytes`);
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
    close: () => zip.close(),
  };
}
