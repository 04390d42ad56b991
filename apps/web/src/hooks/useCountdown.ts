import { useEffect, useState } from 'react';

function secondsUntil(until: number | null): number {
  return until === null ? 0 : Math.max(0, Math.ceil((until - Date.now()) / 1000));
}

/**
 * Whole seconds left until `until` (epoch milliseconds), re-rendering as each second passes;
 * 0 once it has passed or when there is nothing to wait for.
 */
export function useCountdown(until: number | null): number {
  const [seconds, setSeconds] = useState(() => secondsUntil(until));
  useEffect(() => {
    setSeconds(secondsUntil(until));
    if (until === null) return;
    let timer: ReturnType<typeof setTimeout>;
    const tick = () => {
      const left = secondsUntil(until);
      setSeconds(left);
      if (left > 0) {
        // Wake just after the next whole second, so the display never lags by almost a second.
        timer = setTimeout(tick, ((until - Date.now()) % 1000) + 20);
      }
    };
    tick();
    return () => clearTimeout(timer);
  }, [until]);
  // The state catches up in the effect, after this render: nothing to wait for is 0 at once.
  return until === null ? 0 : seconds;
}
