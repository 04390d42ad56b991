/**
 * The middle value, the lower middle one of an even count, so that a median is always one of the
 * figures measured. Needs at least one.
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('the median of nothing');
  return middle;
}
