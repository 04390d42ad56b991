import { describe, expect, it } from 'vitest';
import { inTurnOrder } from './turn-order.js';

describe('inTurnOrder', () => {
  const servers = ['bare', 'ours', 'f7139fe'];

  it('takes the servers as listed in odd rounds and in reverse in even ones, each with its index', () => {
    expect(inTurnOrder(servers, 1)).toEqual([
      [0, 'bare'],
      [1, 'ours'],
      [2, 'f7139fe'],
    ]);
    expect(inTurnOrder(servers, 2)).toEqual([
      [2, 'f7139fe'],
      [1, 'ours'],
      [0, 'bare'],
    ]);
    expect(inTurnOrder(servers, 3)).toEqual(inTurnOrder(servers, 1));
  });

  it('runs every pair of servers in both orders equally often over an even number of rounds', () => {
    const before = (round: number, first: string, second: string) => {
      const order = inTurnOrder(servers, round).map(([, server]) => server);
      return order.indexOf(first) < order.indexOf(second);
    };
    const rounds = [1, 2, 3, 4];
    expect(rounds.filter((round) => before(round, 'ours', 'f7139fe'))).toHaveLength(2);
    expect(rounds.filter((round) => before(round, 'bare', 'ours'))).toHaveLength(2);
  });

  it('leaves the list it is given as it was', () => {
    const listed = [...servers];
    inTurnOrder(listed, 2);
    expect(listed).toEqual(servers);
  });
});
