/**
 * The record of the last release, `api/released/` of each published package, moved forward by
 * `pnpm version-packages` once the versions are bumped: the reports of its TypeScript API, its
 * OpenAPI document (formatted, for a readable diff; the tarball holds the exact bytes), the
 * tarball itself as `pnpm pack` makes it (what the registry gets, installable by a test from a
 * fresh clone with no tag and no registry of ours), and the consumer program of that release.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { PublishedPackage } from './published-packages.js';

export const RELEASED_DOCUMENT = 'openapi.json';

/** `@animal-store/client` 1.2.0 is packed as `animal-store-client-1.2.0.tgz`. */
const tarballPrefix = (name: string) => `${name.replace(/^@/, '').replace('/', '-')}-`;

/** The version of the package's last release, read from its recorded tarball's name. */
export async function releasedVersion(pkg: PublishedPackage): Promise<string | undefined> {
  const files = await readdir(pkg.releasedFolder).catch(() => []);
  const tarball = files.find(
    (file) => file.startsWith(tarballPrefix(pkg.name)) && file.endsWith('.tgz'),
  );
  return tarball?.slice(tarballPrefix(pkg.name).length, -'.tgz'.length);
}

/** The released report of an entry, or undefined when the last release had no such entry. */
export function releasedReport(
  pkg: PublishedPackage,
  reportName: string,
): Promise<string | undefined> {
  return readFile(join(pkg.releasedFolder, `${reportName}.api.md`), 'utf8').catch(() => undefined);
}

export async function releasedDocument(pkg: PublishedPackage): Promise<object | undefined> {
  const text = await readFile(join(pkg.releasedFolder, RELEASED_DOCUMENT), 'utf8').catch(
    () => undefined,
  );
  return text === undefined ? undefined : (JSON.parse(text) as object);
}

/** Replaces the package's record with what the working tree builds: its reports must be current. */
export async function recordRelease(pkg: PublishedPackage): Promise<string[]> {
  await rm(pkg.releasedFolder, { recursive: true, force: true });
  await mkdir(pkg.releasedFolder, { recursive: true });
  for (const { reportName } of pkg.entries) {
    const report = `${reportName}.api.md`;
    await copyFile(join(pkg.reportFolder, report), join(pkg.releasedFolder, report));
  }
  if (pkg.builtDocument) {
    const document = JSON.parse(await readFile(pkg.builtDocument, 'utf8')) as object;
    await writeFile(
      join(pkg.releasedFolder, RELEASED_DOCUMENT),
      `${JSON.stringify(document, null, 2)}\n`,
    );
  }
  await promisify(execFile)('pnpm', ['pack', '--pack-destination', pkg.releasedFolder], {
    cwd: pkg.dir,
  });
  const consumer = await readFile(pkg.consumerProgram).catch(() => undefined);
  if (consumer) await writeFile(join(pkg.releasedFolder, basename(pkg.consumerProgram)), consumer);
  return readdir(pkg.releasedFolder);
}
