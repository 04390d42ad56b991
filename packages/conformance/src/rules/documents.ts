import { API_VERSION } from '@animal-store/contract';
import { z } from 'zod';
import { expectBody, expectStatus, expectThat } from '../expectations.js';
import type { Exchange } from '../http/exchange.js';
import type { Probe, RuleGroup } from '../rule.js';

/** The parts of the OpenAPI document the check reads; the rest is the contract's to say. */
const PublishedDocumentSchema = z.object({
  info: z.object({ version: z.string() }),
  servers: z.array(z.object({ url: z.string() })).optional(),
});

const majorOf = (version: string) => version.split('.')[0];

/** Headers a proxy or load balancer in front of the service may add. */
const PROXY_HEADERS = ['via', 'server', 'x-served-by', 'x-cache'];

function noteProxy(probe: Probe, exchange: Exchange): void {
  const found = PROXY_HEADERS.flatMap((name) => {
    const value = exchange.response.headers[name];
    return value === undefined ? [] : [`${name}: ${value}`];
  });
  probe.observed.note(
    'In front of the service',
    found.length > 0
      ? `a proxy or load balancer, it seems (${found.join('; ')})`
      : 'no proxy header seen (Via, Server…); a proxy may still be there without one',
  );
}

export const documentRules: RuleGroup = {
  name: 'The deployment and its documents',
  rules: [
    {
      name: `/v1/openapi.json is served without a key, for interface version ${majorOf(API_VERSION)}.x`,
      async check(probe) {
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/openapi.json',
          credential: 'none',
        });
        expectStatus(exchange, 200);
        const document = expectBody(exchange, PublishedDocumentSchema);
        probe.observed.note('Interface version', document.info.version);
        probe.observed.note(
          'PUBLIC_URL',
          document.servers?.[0]?.url ??
            'not set (the document names no server): links use the address each request names',
        );
        noteProxy(probe, exchange);
        expectThat(
          majorOf(document.info.version) === majorOf(API_VERSION),
          `the deployment serves interface ${document.info.version}, this check knows ${API_VERSION}`,
          exchange,
        );
      },
    },
  ],
};
