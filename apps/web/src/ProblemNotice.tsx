import { forwardRef, useEffect, useRef } from 'react';
import { describeError, formatTime, retryAt } from './api';
import { useCountdown } from './hooks/useCountdown';

interface ProblemNoticeProps {
  readonly error: unknown;
  /** Shown as "Try again"; for a 429, enabled once the window has reset. */
  readonly onRetry?: () => void;
  /** For a 429: call onRetry by itself, once, when the window resets. */
  readonly retryWhenAllowed?: boolean;
  /** A quieter inline message instead of a box (under the list, for a failed next page). */
  readonly inline?: boolean;
}

/**
 * A failed request, explained; for a 429, a countdown to when the key may ask again ("Try again"
 * stays disabled meanwhile, so no click is wasted on a certain refusal) and one automatic retry
 * when it may. The countdown is a `timer` (not announced each second); the alert speaks once.
 */
export const ProblemNotice = forwardRef<HTMLDivElement, ProblemNoticeProps>(function ProblemNotice(
  { error, onRetry, retryWhenAllowed = false, inline = false },
  ref,
) {
  const until = retryAt(error);
  const seconds = useCountdown(until);
  const waiting = until !== null && seconds > 0;
  const retriedFor = useRef<number | null>(null);

  useEffect(() => {
    if (until === null || seconds > 0 || !retryWhenAllowed || !onRetry) return;
    if (retriedFor.current === until) return;
    retriedFor.current = until;
    onRetry();
  }, [until, seconds, retryWhenAllowed, onRetry]);

  return (
    <div
      ref={ref}
      tabIndex={-1}
      className={inline ? 'problem-inline' : 'alert alert-error'}
      role="alert"
      data-testid="problem"
    >
      <p>
        {describeError(error)}
        {until !== null &&
          (waiting ? (
            <>
              {' '}
              <span role="timer">
                Try again in {seconds} {seconds === 1 ? 'second' : 'seconds'}
              </span>{' '}
              (at {formatTime(new Date(until))}).
            </>
          ) : retryWhenAllowed ? (
            ' Trying again…'
          ) : (
            ' You can try again now.'
          ))}
      </p>
      {onRetry && (
        <button
          type="button"
          className="button"
          aria-disabled={waiting}
          onClick={() => {
            if (!waiting) onRetry();
          }}
        >
          Try again
        </button>
      )}
    </div>
  );
});
