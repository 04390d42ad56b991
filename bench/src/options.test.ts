import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from './options.js';

describe('parseOptions --overload', () => {
  it('takes --duration, --warmup, --rounds and --compare as the scenarios do', () => {
    const options = parseOptions([
      '--overload',
      '--duration',
      '5',
      '--rounds',
      '3',
      '--compare',
      'HEAD~1',
    ]);
    expect(options).toMatchObject({
      overload: true,
      durationSeconds: 5,
      rounds: 3,
      compare: 'HEAD~1',
    });
  });

  it('is off by default', () => {
    expect(parseOptions([]).overload).toBe(false);
  });

  it('refuses the flags whose say it takes over', () => {
    for (const flag of [
      ['--connections', '10'],
      ['--scenarios', 'get'],
      ['--soak', '60'],
    ]) {
      expect(() => parseOptions(['--overload', ...flag])).toThrow(UsageError);
    }
  });
});

describe('parseOptions --balancer', () => {
  it('puts the servers behind HAProxy in any mode, and is off by default', () => {
    expect(parseOptions([]).balancer).toBe(false);
    expect(parseOptions(['--balancer']).balancer).toBe(true);
    expect(parseOptions(['--overload', '--balancer'])).toMatchObject({
      overload: true,
      balancer: true,
    });
  });
});
