import { openZip, type ZipView } from '@presence/sdk/node';

const MAX_MANIFEST_BYTES = 1024 * 1024;

export interface PackInspection {
  /** The zip's central directory was read: the file is a whole zip, not a truncated one. */
  complete: boolean;
  /** manifest.json parsed, when the pack has a readable one. */
  manifest: Record<string, unknown> | undefined;
}

/** Opens a downloaded pack just enough for the summary; checking it is `presence verify-pack`'s job. */
export async function inspectPack(file: string): Promise<PackInspection> {
  let zip: ZipView;
  try {
    zip = await openZip(file);
  } catch {
    return { complete: false, manifest: undefined };
  }
  try {
    const text = (await zip.read('manifest.json', MAX_MANIFEST_BYTES)).toString('utf8');
    return { complete: true, manifest: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { complete: true, manifest: undefined };
  } finally {
    zip.close();
  }
}
