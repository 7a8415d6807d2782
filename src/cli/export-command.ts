import path from 'node:path';
import { createApiClient } from '../api/from-config.js';
import type { Config } from '../config/types.js';
import { checkTarget, EXPORT_FOLDERS, exportOrganization, exportSummary, treeWriter } from '../export/index.js';
import type { Logger } from '../logger.js';
import { printable } from '../output/printable.js';
import type { CliArgs } from './args.js';

/**
 * `--export DIR --organization ORG`: writes a declared repo from the live organization into DIR (new or empty, or any
 * with --force), then prints what it wrote and what it could not. No write to the API.
 */
export async function runExport(args: CliArgs, config: Config, io: { stdout: NodeJS.WriteStream; env: NodeJS.ProcessEnv; logger: Logger }): Promise<number> {
  const dir = path.resolve(args.exportDir as string);
  const organization = args.organization as string;
  await checkTarget(dir, args.force);
  const write = await treeWriter(dir, EXPORT_FOLDERS);
  const api = await createApiClient({ config, env: io.env, logger: io.logger });
  try {
    const result = await exportOrganization(api, organization, { nativeKind: () => api.nativeKind(), concurrency: config.api.concurrency, write });
    // The names the API holds (some refused because of what they contain) are shown printable.
    const shown = { ...result, notExported: result.notExported.map((item) => ({ ...item, name: printable(item.name), reason: printable(item.reason) })) };
    io.stdout.write(exportSummary(shown, organization, dir));
    return 0;
  } finally {
    await api.close();
  }
}
