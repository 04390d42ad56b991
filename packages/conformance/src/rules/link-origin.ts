import { expectThat } from '../expectations.js';
import { readPage } from '../pages.js';
import { type Probe, type RuleGroup, skip } from '../rule.js';
import { readPublishedDocument } from './documents.js';

const FIRST_PAGE = '/v1/pets?limit=1';

function mismatchHint(called: URL, linked: URL): string {
  if (called.host === linked.host && called.protocol === 'https:' && linked.protocol === 'http:') {
    return ': a proxy terminating TLS whose X-Forwarded-Proto the deployment does not believe (TRUST_PROXY), and no PUBLIC_URL';
  }
  return ': a proxy forwarding a Host of its own, and no PUBLIC_URL';
}

/**
 * Over plain HTTP, whether an `X-Forwarded-Proto: https` from the check's address changes the
 * links' scheme: believed, the deployment trusts this address as one of its proxies.
 */
async function noteForwardedProtoTrust(probe: Probe): Promise<void> {
  if (new URL(probe.options.baseUrl).protocol !== 'http:') return;
  const page = await probe.send({
    method: 'GET',
    target: FIRST_PAGE,
    headers: { 'X-Forwarded-Proto': 'https' },
  });
  const believed = page.response.headers.link?.includes('<https:') ?? false;
  probe.observed.note(
    'X-Forwarded-Proto from this address',
    believed
      ? 'believed (links turned https): the deployment, or the proxy in front, trusts this address as a proxy (TRUST_PROXY)'
      : 'not believed: this address is not one of the proxies the deployment trusts',
  );
}

export const linkOriginRules: RuleGroup = {
  name: 'Addresses in Link',
  rules: [
    {
      name: 'rel="next" URLs name the origin the check called, or PUBLIC_URL',
      async check(probe) {
        const page = await readPage(probe, FIRST_PAGE);
        if (page.next === undefined) {
          skip('the deployment has fewer than 2 pets: no page has a next one');
        }
        const called = new URL(probe.options.baseUrl);
        const linked = page.next;
        if (linked.origin === called.origin) {
          probe.observed.note(
            'Origin of Link URLs',
            `${linked.origin}, the origin the check called`,
          );
          await noteForwardedProtoTrust(probe);
          return;
        }
        const { publicUrl } = await readPublishedDocument(probe);
        const isPublicUrl = publicUrl !== undefined && new URL(publicUrl).origin === linked.origin;
        probe.observed.note(
          'Origin of Link URLs',
          `${linked.origin}, ${isPublicUrl ? 'PUBLIC_URL' : 'neither the origin called nor PUBLIC_URL'}`,
        );
        expectThat(
          isPublicUrl,
          `rel="next" names ${linked.origin}, neither the origin called (${called.origin}) nor PUBLIC_URL (${publicUrl ?? 'not set'})${mismatchHint(called, linked)}`,
          page.exchange,
        );
      },
    },
  ],
};
