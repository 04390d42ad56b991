import { describe, expect, it } from 'vitest';
import { joinNextTurn } from './event-loop-turns.js';

/**
 * Two callers in two callbacks of one event-loop phase, as two requests read from two sockets.
 * Immediates queued together always run in one check phase; timers do not: a timer due a
 * millisecond later waits for the next turn when the clock ticks between the two.
 */
function fromTwoCallbacks(step: (caller: string) => Promise<void>) {
  return Promise.all(
    ['a', 'b'].map(
      (caller) => new Promise<void>((resolve) => setImmediate(() => step(caller).then(resolve))),
    ),
  );
}

describe('joinNextTurn', () => {
  it('resumes the callers of one turn together: their next steps run one after the other', async () => {
    const steps: string[] = [];
    await fromTwoCallbacks(async (caller) => {
      await joinNextTurn();
      steps.push(`${caller}1`);
      await Promise.resolve();
      steps.push(`${caller}2`);
    });
    expect(steps).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('serves later turns too', async () => {
    await joinNextTurn();
    const steps: string[] = [];
    await Promise.all([joinNextTurn().then(() => steps.push('x')), joinNextTurn()]);
    await joinNextTurn();
    expect(steps).toEqual(['x']);
  });
});
