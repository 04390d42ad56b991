import { expectHeader, expectHeaderValue, expectThat } from '../expectations.js';
import { type RuleGroup, skip } from '../rule.js';

/** What a request id may be to be echoed (docs/interface.md, "Conventions"). */
const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:]{1,128}$/;

export const requestIdRules: RuleGroup = {
  name: 'X-Request-Id',
  rules: [
    {
      name: 'a sane X-Request-Id sent with the request is echoed',
      async check(probe) {
        const id = `conformance-${crypto.randomUUID()}`;
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=1',
          headers: { 'X-Request-Id': id },
        });
        expectHeaderValue(exchange, 'X-Request-Id', id);
      },
    },
    {
      name: 'an X-Request-Id that is not 1 to 128 of A-Z a-z 0-9 - _ . : is replaced by a new one',
      async check(probe) {
        const sent = 'not a sane id!';
        const exchange = await probe.send({
          method: 'GET',
          target: '/v1/pets?limit=1',
          headers: { 'X-Request-Id': sent },
        });
        const answered = expectHeader(exchange, 'X-Request-Id');
        expectThat(answered !== sent, 'the insane X-Request-Id was echoed', exchange);
        expectThat(SANE_REQUEST_ID.test(answered), `the new id ${answered} is not sane`, exchange);
      },
    },
    {
      name: 'every answer of this run carried an X-Request-Id',
      async check(probe) {
        if (probe.earlierExchanges.length === 0) return skip('no answer to look at');
        for (const exchange of probe.earlierExchanges) expectHeader(exchange, 'X-Request-Id');
      },
    },
  ],
};
