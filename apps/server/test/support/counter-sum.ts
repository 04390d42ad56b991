/** The sum of a Prometheus counter's samples, in an exposition, whose labels include `labels`. */
export function counterSum(exposition: string, name: string, labels: string): number {
  return exposition
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
