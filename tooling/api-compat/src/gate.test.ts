import { describe, expect, it } from 'vitest';
import type { ApiChange } from './api-change.js';
import type { ReportOutcome } from './api-reports.js';
import { gateFailures } from './gate.js';
import type { Bump } from './release-plan.js';

const PACKAGES = ['@animal-store/client', '@animal-store/contract'];

const change = (impact: ApiChange['impact']): ApiChange => ({
  impact,
  subject: '`GET /v1/pets` (listPets)',
  change: 'query parameter `limit`: maximum changed from `100` to `50`',
});

const bumps = (client: Bump, contract: Bump) =>
  new Map<string, Bump>([
    ['@animal-store/client', client],
    ['@animal-store/contract', contract],
  ]);

const report = (changed: boolean): ReportOutcome => ({
  entry: {
    specifier: '@animal-store/contract',
    declarations: '/repo/packages/contract/dist/index.d.ts',
    reportName: 'contract',
  },
  report: '/repo/packages/contract/api/contract.api.md',
  generated: '',
  changed,
  problems: [],
});

describe('the gate', () => {
  it('fails on a breaking change unless both packages are bumped major', () => {
    const changes = [change('breaking')];
    for (const pending of [
      bumps('none', 'none'),
      bumps('minor', 'minor'),
      bumps('minor', 'major'),
    ]) {
      const failures = gateFailures({ changes, reports: [], bumps: pending, packages: PACKAGES });
      expect(failures).toEqual([
        expect.stringMatching(/^1 breaking change, and no pending changeset/),
      ]);
    }
    expect(
      gateFailures({ changes, reports: [], bumps: bumps('major', 'major'), packages: PACKAGES }),
    ).toEqual([]);
  });

  it('fails on a package that records no release unless a pending changeset releases it', () => {
    const newcomer = '@animal-store/conformance';
    const input = { changes: [], reports: [], packages: [...PACKAGES, newcomer] };
    expect(
      gateFailures({ ...input, bumps: bumps('none', 'none'), unreleased: [newcomer] }),
    ).toEqual([expect.stringMatching(/^@animal-store\/conformance records no release/)]);
    const firstRelease = new Map([...bumps('minor', 'minor'), [newcomer, 'minor' as const]]);
    expect(gateFailures({ ...input, bumps: firstRelease, unreleased: [newcomer] })).toEqual([]);
  });

  it('fails on a change no pending changeset releases: an addition needs a minor, anything else a patch', () => {
    const gate = (changes: ApiChange[], pending: Map<string, Bump>) =>
      gateFailures({ changes, reports: [], bumps: pending, packages: PACKAGES });
    const unreleased = expect.stringMatching(
      /^1 API change since the last release that no pending changeset releases/,
    );
    expect(gate([change('non-breaking')], bumps('none', 'none'))).toEqual([unreleased]);
    expect(gate([change('non-breaking')], bumps('patch', 'patch'))).toEqual([unreleased]);
    expect(gate([change('review')], bumps('none', 'none'))).toEqual([unreleased]);
    expect(gate([change('documentation')], bumps('none', 'none'))).toEqual([unreleased]);
    expect(gate([change('review'), change('documentation')], bumps('patch', 'patch'))).toEqual([]);
    const changes = [change('non-breaking'), change('review'), change('documentation')];
    for (const pending of [bumps('minor', 'minor'), bumps('major', 'major')]) {
      expect(gate(changes, pending)).toEqual([]);
    }
    expect(gate([], bumps('none', 'none'))).toEqual([]);
  });

  it('fails on a changed TypeScript API whose report was not updated, whatever the bump', () => {
    for (const pending of [bumps('none', 'none'), bumps('major', 'major')]) {
      const failures = gateFailures({
        changes: [],
        reports: [report(true), report(false)],
        bumps: pending,
        packages: PACKAGES,
      });
      expect(failures).toEqual([
        expect.stringMatching(
          /^The public TypeScript API of @animal-store\/contract changed.*pnpm api:update/,
        ),
      ]);
    }
  });
});
