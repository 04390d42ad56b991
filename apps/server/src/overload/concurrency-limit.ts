/**
 * How much work the server admits at once, learned from how long the work it admits takes
 * (AIMD on latency, as Netflix's concurrency-limits and Envoy's adaptive concurrency learn
 * theirs): while requests find the limit reached, it grows as long as the latency of admitted
 * requests stays within its target, and shrinks by how far it overshot when it does not. No
 * operator picks the limit; they may pick the latency it protects. Why this rule, and not a
 * limit on time in line or a floor from what a turn shares:
 * docs/decisions/013-admission-by-latency-then-a-fair-wait.md.
 */

export interface ConcurrencyLimitSettings {
  /**
   * The latency protected: the 90th percentile of admitted requests' time in the server, in ms.
   * Twice the lowest such percentile of a light window in the last minute is protected instead
   * when that is higher (a deployment whose normal latency is higher).
   */
  targetLatencyMs: number;
  /** The limit before anything is measured. */
  initial: number;
  min: number;
  max: number;
  /** How often the limit is reconsidered, from the samples since the last time (ms). */
  windowMs: number;
}

/**
 * The least limit is what normal load keeps in the server at once with room to spare, so that a
 * limit shrunk by a crowd makes nothing wait once the crowd has gone.
 */
export const DEFAULT_CONCURRENCY_LIMIT: ConcurrencyLimitSettings = {
  targetLatencyMs: 25,
  initial: 500,
  min: 100,
  max: 5_000,
  windowMs: 100,
};

/** Samples kept per window: past it, later ones overwrite earlier ones in turn. */
const MOST_SAMPLES = 2_048;
/** Windows remembered for the lowest normal latency: a minute of 100 ms windows. */
const BASELINE_WINDOWS = 600;
/** A decrease takes at most half the limit, and at least a tenth. */
const DECREASE = { most: 0.5, least: 0.9 } as const;
function percentile90(samples: Float64Array, count: number): number {
  const sorted = samples.slice(0, count).sort();
  return sorted[Math.min(count - 1, Math.floor(count * 0.9))] as number;
}

export class ConcurrencyLimit {
  readonly #settings: ConcurrencyLimitSettings;
  #limit: number;
  readonly #samples = new Float64Array(MOST_SAMPLES);
  #sampled = 0;
  #windowStartMs: number | undefined;
  #reachedInWindow = false;
  #mostInFlightInWindow = 0;
  /** The 90th percentiles of recent light windows. */
  readonly #baselines: number[] = [];

  constructor(settings: Partial<ConcurrencyLimitSettings> = {}) {
    this.#settings = { ...DEFAULT_CONCURRENCY_LIMIT, ...settings };
    this.#limit = this.#settings.initial;
  }

  /** How many requests may be in the server at once now. */
  get value(): number {
    return Math.floor(this.#limit);
  }

  /** The latency the limit protects now (ms). */
  get targetLatencyMs(): number {
    const baseline = this.#baselines.length > 0 ? Math.min(...this.#baselines) : 0;
    return Math.max(this.#settings.targetLatencyMs, 2 * baseline);
  }

  /** A request found the limit reached: the window is not one of normal load. */
  reached(): void {
    this.#reachedInWindow = true;
  }

  /**
   * An admitted request finished, `latencyMs` after it was admitted, at `nowMs`, with `inFlight`
   * requests in the server, itself included.
   */
  sample(latencyMs: number, nowMs: number, inFlight: number): void {
    this.#windowStartMs ??= nowMs;
    this.#mostInFlightInWindow = Math.max(this.#mostInFlightInWindow, inFlight);
    this.#samples[this.#sampled % MOST_SAMPLES] = latencyMs;
    this.#sampled += 1;
    if (nowMs - this.#windowStartMs >= this.#settings.windowMs) this.#endWindow(nowMs);
  }

  /**
   * Reconsidered only in a window where the limit was reached: then it shrinks by how far the
   * latency overshot its target, or grows while the latency is within it. A window in which it
   * was not reached does not move it, whatever its latency. Only a light one, never more than
   * half the limit in the server, teaches the baseline: a crowd can leave a window in which no
   * request waited, and its latency, queueing in the server included, taken for normal would
   * raise the target with the crowd, and the limit with it (measured in docs/performance.md).
   */
  #endWindow(nowMs: number): void {
    const latency = percentile90(this.#samples, Math.min(this.#sampled, MOST_SAMPLES));
    if (!this.#reachedInWindow) {
      if (this.#mostInFlightInWindow <= this.#limit / 2) this.#learnBaseline(latency);
    } else {
      const target = this.targetLatencyMs;
      const { min, max } = this.#settings;
      if (latency > target) {
        const factor = Math.min(DECREASE.least, Math.max(DECREASE.most, target / latency));
        this.#limit = Math.max(min, this.#limit * factor);
      } else {
        this.#limit = Math.min(max, this.#limit + Math.sqrt(this.#limit));
      }
    }
    this.#sampled = 0;
    this.#reachedInWindow = false;
    this.#mostInFlightInWindow = 0;
    this.#windowStartMs = nowMs;
  }

  #learnBaseline(latency: number): void {
    this.#baselines.push(latency);
    if (this.#baselines.length > BASELINE_WINDOWS) this.#baselines.shift();
  }
}
