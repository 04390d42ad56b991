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

export interface PublishedDocument {
  readonly exchange: Exchange;
  readonly version: string;
  /** `PUBLIC_URL`, as the document's first server names it; undefined when it names none absolute. */
  readonly publicUrl: string | undefined;
}

/** The OpenAPI document the deployment serves, read without a key as any reader does. */
export async function readPublishedDocument(probe: Probe): Promise<PublishedDocument> {
  const exchange = await probe.send({
    method: 'GET',
    target: '/v1/openapi.json',
    credential: 'none',
  });
  expectStatus(exchange, 200);
  const document = expectBody(exchange, PublishedDocumentSchema);
  const server = document.servers?.[0]?.url;
  return {
    exchange,
    version: document.info.version,
    publicUrl: server !== undefined && URL.canParse(server) ? server : undefined,
  };
}

export const documentRules: RuleGroup = {
  name: 'The deployment and its documents',
  rules: [
    {
      name: `/v1/openapi.json is served without a key, for interface version ${majorOf(API_VERSION)}.x`,
      async check(probe) {
        const { exchange, version, publicUrl } = await readPublishedDocument(probe);
        probe.observed.note('Interface version', version);
        probe.observed.note(
          'PUBLIC_URL',
          publicUrl === undefined
            ? 'not set, it seems (the OpenAPI document names no absolute server): links use the address each request names'
            : `${publicUrl} (the OpenAPI document's server)`,
        );
        noteProxy(probe, exchange);
        expectThat(
          majorOf(version) === majorOf(API_VERSION),
          `the deployment serves interface ${version}, this check knows ${API_VERSION}`,
          exchange,
        );
      },
    },
  ],
};
