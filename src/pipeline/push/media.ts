/**
 * Files a mapping read from a folder (product images) go to the shop before the record that names
 * them, when the pipeline opts in (`mediaUpload: assumed-media-endpoint`). Which list fields name
 * files, and under which media `entity_type`, comes from the registry (`lists[field].files`).
 */
import { readFile } from 'node:fs/promises';
import type { SourceFile } from '../../mapping/folders.js';
import type { ResourceDef } from '../../shop/registry/index.js';
import type { MediaFile, ShopClient } from '../../shop/client/types.js';
import { SyncError } from '../../errors.js';

/** Upload the files a record's payload names; returns the number of requests made. Throws when a file cannot be read or the shop refuses one. */
export async function uploadRecordFiles(shop: ShopClient, resource: ResourceDef, payload: Readonly<Record<string, unknown>>, files: readonly SourceFile[]): Promise<number> {
  const byType = new Map<string, MediaFile[]>();
  for (const f of files) {
    const spec = resource.lists[f.field]?.files;
    const list = payload[f.field];
    if (!spec || !Array.isArray(list)) continue;
    const name = (list[f.index] as Record<string, unknown> | undefined)?.[spec.nameField];
    if (typeof name !== 'string' || name === '') continue;
    let content: Buffer;
    try {
      content = await readFile(f.path);
    } catch (err) {
      throw new SyncError('MEDIA_FILE_UNREADABLE', `${f.path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the record is not sent, so the shop's ${f.field} stay as they are`, { cause: err });
    }
    const batch = byType.get(spec.entityType) ?? [];
    batch.push({ name, content });
    byType.set(spec.entityType, batch);
  }
  for (const [entityType, batch] of byType) await shop.uploadMedia(entityType, batch);
  return byType.size;
}
