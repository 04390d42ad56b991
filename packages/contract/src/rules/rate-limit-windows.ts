/**
 * docs/interface.md, "Rate limits": requests are counted in UTC calendar windows, a minute and a
 * day, which begin and end at the same instants for every client (not a minute from a client's
 * first request).
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** A UTC calendar window: its number since the epoch and when it ends (epoch ms). */
export interface Window {
  index: number;
  endsAtMs: number;
}

function windowOf(nowMs: number, lengthMs: number): Window {
  const index = Math.floor(nowMs / lengthMs);
  return { index, endsAtMs: (index + 1) * lengthMs };
}

export const minuteWindow = (nowMs: number): Window => windowOf(nowMs, MINUTE_MS);
export const dayWindow = (nowMs: number): Window => windowOf(nowMs, DAY_MS);
