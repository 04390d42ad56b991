/**
 * pnpm api:check   compares the built packages with the last release's record, prints the API
 *                  changes for the changelog, and fails on a breaking change without a pending
 *                  major changeset, or on a changed TypeScript API whose report is not updated
 * pnpm api:update  writes the reports of the TypeScript API as the packages are now built
 * api:record       (run by pnpm version-packages) moves the record of the last release forward
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { ApiChange } from './api-change.js';
import { type ReportOutcome, reportAll } from './api-reports.js';
import { changelog } from './changelog.js';
import { gateFailures } from './gate.js';
import { openApiChanges } from './openapi-changes.js';
import { type PublishedPackage, publishedPackages, REPOSITORY_ROOT } from './published-packages.js';
import { pendingBumps } from './release-plan.js';
import {
  recordRelease,
  releasedDocument,
  releasedReport,
  releasedVersion,
} from './release-record.js';
import { typescriptChanges } from './typescript-changes.js';

const print = (text: string) => process.stdout.write(`${text}\n`);

async function changesSinceRelease(
  packages: readonly PublishedPackage[],
  reports: readonly ReportOutcome[],
): Promise<ApiChange[]> {
  const changes: ApiChange[] = [];
  for (const pkg of packages) {
    const released = await releasedDocument(pkg);
    if (released && pkg.builtDocument) {
      const built = JSON.parse(await readFile(pkg.builtDocument, 'utf8')) as object;
      changes.push(...openApiChanges(released, built));
    }
  }
  for (const { entry, generated } of reports) {
    const pkg = packages.find((candidate) => candidate.entries.includes(entry));
    const released = pkg && (await releasedReport(pkg, entry.reportName));
    if (released === undefined) {
      changes.push({
        impact: 'non-breaking',
        subject: `\`${entry.specifier}\``,
        change: 'entry added',
      });
    } else changes.push(...typescriptChanges(entry.specifier, released, generated));
  }
  return changes;
}

async function check(): Promise<boolean> {
  const packages = await publishedPackages();
  const versions: string[] = [];
  const unreleased: string[] = [];
  for (const pkg of packages) {
    const version = await releasedVersion(pkg);
    if (version === undefined) unreleased.push(pkg.name);
    versions.push(`${pkg.name} ${version ?? 'never released'}`);
  }
  const reports = await reportAll(packages, 'check');
  const changes = await changesSinceRelease(packages, reports);
  const bumps = await pendingBumps(REPOSITORY_ROOT);

  print(`API changes since the last release (${versions.join(', ')}):\n`);
  print(changes.length === 0 ? 'None.\n' : changelog(changes));
  const pending = packages.map((pkg) => `${pkg.name} ${bumps.get(pkg.name) ?? 'none'}`);
  print(`Pending changesets bump: ${pending.join(', ')}.`);

  const failures = gateFailures({
    changes,
    reports,
    bumps,
    packages: packages.map((pkg) => pkg.name),
    unreleased,
  });
  for (const failure of failures) console.error(`\n✗ ${failure}`);
  if (failures.length === 0)
    print('\n✓ The API changes may be released as the pending changesets say.');
  return failures.length === 0;
}

async function update(): Promise<boolean> {
  const reports = await reportAll(await publishedPackages(), 'update');
  for (const { report, changed, problems } of reports) {
    print(`${relative(REPOSITORY_ROOT, report)}: ${changed ? 'updated' : 'unchanged'}`);
    for (const problem of problems) console.error(`✗ ${problem}`);
  }
  return reports.every(({ problems }) => problems.length === 0);
}

async function record(): Promise<boolean> {
  if (!(await update())) return false;
  for (const pkg of await publishedPackages()) {
    const files = await recordRelease(pkg);
    print(`${relative(REPOSITORY_ROOT, pkg.releasedFolder)}: ${files.join(', ')}`);
  }
  return true;
}

const COMMANDS: Record<string, () => Promise<boolean>> = { check, update, record };
const command = COMMANDS[process.argv[2] ?? ''];
if (!command) {
  console.error(`usage: main.ts ${Object.keys(COMMANDS).join(' | ')}`);
  process.exitCode = 2;
} else if (!(await command())) {
  process.exitCode = 1;
}
