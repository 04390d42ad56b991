import type { ApiChange, Impact } from './api-change.js';

const SECTIONS: readonly { readonly impact: Impact; readonly title: string }[] = [
  { impact: 'breaking', title: 'Breaking' },
  { impact: 'non-breaking', title: 'Non-breaking' },
  {
    impact: 'review',
    title: 'To review (TypeScript declarations changed: the diff of api/*.api.md shows how)',
  },
  { impact: 'documentation', title: 'Documentation' },
];

const RESPONSE = /^response (\S+): (.+)$/;

/**
 * One line per change of an operation, the responses it is in gathered: a shared schema changed
 * once is changed in every response that uses it (`responses 400, 401, 429: field …`).
 */
function lines(changes: readonly ApiChange[]): string[] {
  const gathered = new Map<string, { subject: string; change: string; statuses: string[] }>();
  for (const { subject, change } of changes) {
    const [, status, rest = change] = RESPONSE.exec(change) ?? [];
    const key = `${subject}\n${rest}`;
    const entry = gathered.get(key) ?? { subject, change: rest, statuses: [] };
    if (status && !entry.statuses.includes(status)) entry.statuses.push(status);
    gathered.set(key, entry);
  }
  return [...gathered.values()].map(({ subject, change, statuses }) => {
    if (statuses.length === 0) return `- ${subject}: ${change}`;
    const responses = `${statuses.length === 1 ? 'response' : 'responses'} ${statuses.join(', ')}`;
    return `- ${subject}: ${responses}: ${change}`;
  });
}

/** The changes as Markdown, by impact, ready for a changeset or a changelog. */
export function changelog(changes: readonly ApiChange[]): string {
  return SECTIONS.flatMap(({ impact, title }) => {
    const listed = lines(changes.filter((change) => change.impact === impact));
    return listed.length === 0 ? [] : [`### ${title}\n\n${listed.join('\n')}\n`];
  }).join('\n');
}
