/**
 * The public TypeScript API of each entry of a published package, as API Extractor reports it
 * (`api/<name>.api.md`) from the declarations tsup built: what a user's code can import, with
 * its full type, and nothing of how it is implemented.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
} from '@microsoft/api-extractor';
import type { DeclarationEntry, PublishedPackage } from './published-packages.js';

export interface ReportOutcome {
  readonly entry: DeclarationEntry;
  /** The report in the repository, `api/<name>.api.md`. */
  readonly report: string;
  /** The report of the declarations as built, whether or not it was written to `report`. */
  readonly generated: string;
  /** Whether the declarations no longer match the report (in check mode it is left as it was). */
  readonly changed: boolean;
  /** What API Extractor found wrong besides, one line each. */
  readonly problems: readonly string[];
}

export type ReportMode = 'check' | 'update';

/** The compiler settings declarations are read with: those of a user on TypeScript's defaults. */
const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2024', 'DOM', 'DOM.Iterable'],
  types: [],
  strict: true,
  // The peers' own declarations are theirs to check.
  skipLibCheck: true,
};

/**
 * Runs API Extractor on one entry. `update` writes the report when the API changed; `check`
 * leaves it, and says so.
 */
export async function reportEntry(
  pkg: PublishedPackage,
  entry: DeclarationEntry,
  mode: ReportMode,
): Promise<ReportOutcome> {
  const scratch = await mkdtemp(join(tmpdir(), 'api-extractor-'));
  if (mode === 'update') await mkdir(pkg.reportFolder, { recursive: true });
  const problems: string[] = [];
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: pkg.dir,
        mainEntryPointFilePath: entry.declarations,
        compiler: { overrideTsconfig: { compilerOptions: COMPILER_OPTIONS } },
        apiReport: {
          enabled: true,
          reportFileName: entry.reportName,
          reportFolder: pkg.reportFolder,
          reportTempFolder: scratch,
          // Types the exports use without exporting them (the client's `Operation`) are part of
          // the API too: a change to one changes what users get, so the report must show it.
          includeForgottenExports: true,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
          extractorMessageReporting: {
            // Written into the report, where a reviewer sees them with the API they concern.
            default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
            // Release tags (@public, @beta) are not used: everything exported is public.
            'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
            // Whether each declaration has a comment is for its review, not for this gate.
            'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          },
          // The comments are written for readers, not for TSDoc's grammar.
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: join(pkg.dir, 'package.json'),
    });
    const result = Extractor.invoke(config, {
      localBuild: mode === 'update',
      messageCallback: (message: ExtractorMessage) => {
        message.handled = true;
        // API Extractor's own notes (report written, unchanged, differs) are told by `changed`.
        if (message.category === ExtractorMessageCategory.Console) return;
        if (
          message.logLevel === ExtractorLogLevel.Error ||
          message.logLevel === ExtractorLogLevel.Warning
        ) {
          problems.push(message.formatMessageWithLocation(dirname(pkg.dir)));
        }
      },
    });
    // One report, the `complete` variant: this project tags no API @beta or @alpha.
    const fileName = config.reportConfigs[0]?.fileName ?? `${entry.reportName}.api.md`;
    return {
      entry,
      report: join(config.reportFolder, fileName),
      generated: await readFile(join(config.reportTempFolder, fileName), 'utf8'),
      changed: result.apiReportChanged,
      problems,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Every entry of every package, one after the other (each builds a TypeScript program). */
export async function reportAll(
  packages: readonly PublishedPackage[],
  mode: ReportMode,
): Promise<ReportOutcome[]> {
  const outcomes: ReportOutcome[] = [];
  for (const pkg of packages) {
    for (const entry of pkg.entries) outcomes.push(await reportEntry(pkg, entry, mode));
  }
  return outcomes;
}
