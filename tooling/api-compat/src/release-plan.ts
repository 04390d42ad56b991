import getReleasePlan from '@changesets/get-release-plan';

export type Bump = 'major' | 'minor' | 'patch' | 'none';

/**
 * The bump each package would get from the pending changesets, as `pnpm version-packages` will
 * give it (the `fixed` group of `.changeset/config.json` included).
 */
export async function pendingBumps(root: string): Promise<Map<string, Bump>> {
  const plan = await getReleasePlan(root);
  return new Map(plan.releases.map((release) => [release.name, release.type]));
}
