import { describe, expect, it } from 'vitest';
import { changelog } from './changelog.js';

describe('changelog', () => {
  it('lists the changes by impact, a change shared by responses once per operation', () => {
    const listPets = '`GET /v1/pets` (listPets)';
    expect(
      changelog([
        {
          impact: 'non-breaking',
          subject: listPets,
          change: 'response 400: error code `gone` added',
        },
        { impact: 'breaking', subject: listPets, change: 'response 400: field `details` removed' },
        { impact: 'breaking', subject: listPets, change: 'response 401: field `details` removed' },
        { impact: 'documentation', subject: listPets, change: 'description changed' },
      ]),
    ).toBe(
      [
        '### Breaking',
        '',
        `- ${listPets}: responses 400, 401: field \`details\` removed`,
        '',
        '### Non-breaking',
        '',
        `- ${listPets}: response 400: error code \`gone\` added`,
        '',
        '### Documentation',
        '',
        `- ${listPets}: description changed`,
        '',
      ].join('\n'),
    );
  });
});
