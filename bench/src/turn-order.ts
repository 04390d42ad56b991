/**
 * The targets with their indexes, in the order they take their turns in round 1, 2, …: as
 * listed in odd rounds, reversed in even ones. A target that always ran just after the same
 * other one would carry whatever that position does to it (the machine still busy with the last
 * load, a drift over a round's seconds) into every ratio between them; alternating puts each
 * pair in both orders, so over an even number of rounds such an effect falls on both sides alike.
 */
export function inTurnOrder<T>(items: readonly T[], round: number): Array<[number, T]> {
  const turns = [...items.entries()];
  return round % 2 === 0 ? turns.reverse() : turns;
}
