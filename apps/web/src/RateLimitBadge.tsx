import { useEffect, useState, useSyncExternalStore } from 'react';
import { formatTime } from './api';
import { rateLimitStore } from './session';

const numbers = new Intl.NumberFormat();

type Level = 'plenty' | 'low' | 'out';

/**
 * The request budget of the binding window, as the last response reported it. It is always on
 * screen but speaks only when the budget runs low or out, once each time it gets there.
 */
export function RateLimitBadge() {
  const budget = useSyncExternalStore(rateLimitStore.subscribe, rateLimitStore.get);
  const level: Level | null =
    budget === null
      ? null
      : budget.remaining === 0
        ? 'out'
        : budget.remaining <= Math.max(1, Math.floor(budget.limit / 10))
          ? 'low'
          : 'plenty';
  const [announcement, setAnnouncement] = useState('');

  // Only a change of level is announced, in the words of the moment it changed.
  useEffect(() => {
    const now = rateLimitStore.get();
    if (level === null || level === 'plenty' || now === null) {
      setAnnouncement('');
      return;
    }
    const until = formatTime(now.resetAt);
    setAnnouncement(
      level === 'out'
        ? `No requests left for this key until ${until}.`
        : `Only ${numbers.format(now.remaining)} ${now.remaining === 1 ? 'request' : 'requests'} left for this key until ${until}.`,
    );
  }, [level]);

  return (
    <>
      {budget !== null && (
        <p className={`budget budget-${level}`} data-testid="budget">
          <span className="budget-count">
            {numbers.format(budget.remaining)} of {numbers.format(budget.limit)}
          </span>{' '}
          requests left · resets at{' '}
          <time dateTime={budget.resetAt.toISOString()}>{formatTime(budget.resetAt)}</time>
        </p>
      )}
      <p className="visually-hidden" role="status" data-testid="budget-announcement">
        {announcement}
      </p>
    </>
  );
}
