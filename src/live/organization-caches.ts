/**
 * Caches kept in the state dir one file per organization (the code cache, the evidence cache): each read from its file
 * on first use and written back, whole and atomically, when it changed. A failed write is a warning, never an error.
 * A file is written once per change of its cache: never two writes of it at once, and the saves asked for while one
 * is under way are one write after it (coalesced-writes.ts), so passes of many sources ending together cost one write
 * per organization, not one per organization per pass.
 */
import path from 'node:path';
import { coalescedWrites, type CoalescedWrite } from '../coalesced-writes.js';
import { errorMessage } from '../errors.js';
import { loopTurn } from '../loop-turn.js';
import type { Logger } from '../logger.js';
import { organizationFileName, writeStateText } from '../state-dir.js';

/** The caches of a run, one per organization, loaded from and saved to the state dir. */
export interface OrganizationCaches<C> {
  /** The organization's cache, read from its file on first use; the same object on every call. */
  forOrganization(organization: string): Promise<C>;
  /** Writes every cache that changed since it was read or last written. A failed write is a warning, never an error. */
  save(): Promise<void>;
  /** Writes the organization's cache if it changed since it was read or last written (the end of a pass of one of its sources). */
  saveOrganization(organization: string): Promise<void>;
}

export interface OrganizationCachesOptions<C> {
  /** The state dir's folder of this kind of cache. */
  folder: string;
  logger: Logger;
  /** false: nothing is read or written; `load` is given no file. */
  persist: boolean;
  /** The cache of the file (null: not persisted, an empty one). */
  load(file: string | null, organization: string): Promise<C>;
  serialize(organization: string, cache: C): string;
  /** Bumped by every change of a cache. */
  revision(cache: C): number;
  /** The warning of a failed write. */
  writeFailed: string;
}

interface Loaded<C> {
  cache: C;
  file: string;
  savedRevision: number;
  /** Writes the cache if its revision moved; one write at a time, the requests meanwhile coalesced. */
  save: CoalescedWrite;
}

export function openOrganizationCaches<C>(options: OrganizationCachesOptions<C>): OrganizationCaches<C> {
  const loaded = new Map<string, Promise<Loaded<C>>>();
  const load = async (organization: string): Promise<Loaded<C>> => {
    const file = path.join(options.folder, organizationFileName(organization));
    const entry: Loaded<C> = {
      cache: await options.load(options.persist ? file : null, organization), file, savedRevision: 0,
      save: coalescedWrites(async () => {
        // Serialized in a turn of its own, not at the end of the pass that asked (20,000 entries: tens of ms of the loop).
        await loopTurn();
        const revision = options.revision(entry.cache);
        if (revision === entry.savedRevision) return;
        try {
          await writeStateText(entry.file, options.serialize(organization, entry.cache));
          entry.savedRevision = revision;
        } catch (error) {
          options.logger.warn({ file: entry.file, error: errorMessage(error) }, options.writeFailed);
        }
      }),
    };
    return entry;
  };
  const saveOrganization = async (organization: string): Promise<void> => {
    const pending = loaded.get(organization);
    if (!options.persist || pending === undefined) return;
    await (await pending).save();
  };
  return {
    forOrganization(organization) {
      let entry = loaded.get(organization);
      if (entry === undefined) loaded.set(organization, (entry = load(organization)));
      return entry.then((l) => l.cache);
    },
    async save() {
      await Promise.all([...loaded.keys()].map(saveOrganization));
    },
    saveOrganization,
  };
}

/**
 * The fields of a cache file's JSON document when it is an object of this format, version and organization; null for
 * anything else (not JSON, another format or version, another organization's), which the caller then ignores.
 */
export function ownDocument(text: string, expected: { format: string; version: number; organization: string }): Record<string, unknown> | null {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof document !== 'object' || document === null) return null;
  const fields = document as Record<string, unknown>;
  return fields['format'] === expected.format && fields['version'] === expected.version && fields['organization'] === expected.organization ? fields : null;
}
