/**
 * Whether the API changes may be released as the pending changesets say: a breaking change needs
 * every published package bumped major (they are one `fixed` group, so a major changeset for
 * either does it); any other change needs the release that will ship it (an addition at least a
 * minor, anything else at least a patch), or the next `pnpm version-packages` would leave it out
 * unseen; and a changed TypeScript API needs its report updated in the same change.
 */
import { relative } from 'node:path';
import type { ApiChange } from './api-change.js';
import type { ReportOutcome } from './api-reports.js';
import { REPOSITORY_ROOT } from './published-packages.js';
import type { Bump } from './release-plan.js';

const BUMP_RANK: Record<Bump, number> = { none: 0, patch: 1, minor: 2, major: 3 };

/** The least release that may ship a change of each impact (a breaking one is checked above). */
const LEAST_BUMP: Record<ApiChange['impact'], Bump> = {
  breaking: 'major',
  'non-breaking': 'minor',
  review: 'patch',
  documentation: 'patch',
};

export interface GateInput {
  readonly changes: readonly ApiChange[];
  readonly reports: readonly ReportOutcome[];
  readonly bumps: ReadonlyMap<string, Bump>;
  /** The published packages, by name. */
  readonly packages: readonly string[];
  /** The published packages whose `api/released/` records no release, by name. */
  readonly unreleased?: readonly string[];
}

/** Why the changes may not be released as they are; none when they may. */
export function gateFailures({
  changes,
  reports,
  bumps,
  packages,
  unreleased = [],
}: GateInput): string[] {
  const failures: string[] = [];
  // A package never released has no record to compare with: its first release is a changeset
  // that names it. Without one, the record was lost, and every change would pass unseen.
  for (const name of unreleased) {
    const bump = bumps.get(name);
    if (bump === undefined || bump === 'none') {
      failures.push(
        `${name} records no release, and no pending changeset releases it: pnpm changeset for its first release, or pnpm api:record if its record was lost.`,
      );
    }
  }
  const breaking = changes.filter((change) => change.impact === 'breaking').length;
  if (breaking > 0 && !packages.every((name) => bumps.get(name) === 'major')) {
    failures.push(
      `${breaking} breaking change${breaking === 1 ? '' : 's'}, and no pending changeset bumps ${packages.join(' and ')} major. ` +
        'Keep what the last release offers beside the new (CONTRIBUTING.md, "Making a breaking change on purpose"), or release a major: pnpm changeset.',
    );
  }
  const released = Math.min(...packages.map((name) => BUMP_RANK[bumps.get(name) ?? 'none']));
  const unreleasedChanges = changes.filter(
    (change) => change.impact !== 'breaking' && BUMP_RANK[LEAST_BUMP[change.impact]] > released,
  );
  if (unreleasedChanges.length > 0) {
    // Name the change that needs the most: an addition before a description.
    const [first] = unreleasedChanges.toSorted(
      (a, b) => BUMP_RANK[LEAST_BUMP[b.impact]] - BUMP_RANK[LEAST_BUMP[a.impact]],
    );
    failures.push(
      `${unreleasedChanges.length} API change${unreleasedChanges.length === 1 ? '' : 's'} since the last release that no pending changeset releases ` +
        `(among them ${first?.subject}, ${first?.change}; an addition needs a minor, anything else a patch): pnpm changeset, saying what users get.`,
    );
  }
  for (const { entry, report, changed } of reports) {
    if (changed) {
      failures.push(
        `The public TypeScript API of ${entry.specifier} changed, and ${relative(REPOSITORY_ROOT, report)} does not show it: ` +
          'run pnpm api:update and commit the report with the change.',
      );
    }
  }
  for (const { problems } of reports) failures.push(...problems);
  return failures;
}
