import { useSyncExternalStore } from 'react';
import { formatTime } from './api';
import { rateLimitStore } from './session';

const numbers = new Intl.NumberFormat();

/** The request budget of the binding window, as the last response reported it. */
export function RateLimitBadge() {
  const budget = useSyncExternalStore(rateLimitStore.subscribe, rateLimitStore.get);
  if (budget === null) return null;
  const low = budget.remaining <= Math.max(1, Math.floor(budget.limit / 10));
  return (
    <p className={`budget${low ? ' budget-low' : ''}`} aria-live="polite" data-testid="budget">
      <span className="budget-count">
        {numbers.format(budget.remaining)} of {numbers.format(budget.limit)}
      </span>{' '}
      requests left · resets at{' '}
      <time dateTime={budget.resetAt.toISOString()}>{formatTime(budget.resetAt)}</time>
    </p>
  );
}
