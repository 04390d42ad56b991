import { useCallback, useSyncExternalStore } from 'react';

/**
 * State kept in the page's query string (`?status=sold&limit=10`), so a reload or a shared link
 * shows the same view. Updates replace the history entry: a filter change is not a page to go
 * back to.
 */
type Listener = () => void;
const listeners = new Set<Listener>();

function subscribe(listener: Listener) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

const getSearch = () => window.location.search;

/**
 * One query parameter, read through `parse` (which returns undefined for a missing or invalid
 * value, so `fallback` applies); setting `fallback` removes it from the URL.
 */
export function useUrlState<T>(
  name: string,
  parse: (text: string) => T | undefined,
  fallback: T,
): [T, (next: T) => void] {
  const search = useSyncExternalStore(subscribe, getSearch);
  const text = new URLSearchParams(search).get(name);
  const value = text === null ? fallback : (parse(text) ?? fallback);
  const setValue = useCallback(
    (next: T) => {
      const url = new URL(window.location.href);
      if (Object.is(next, fallback)) url.searchParams.delete(name);
      else url.searchParams.set(name, String(next));
      if (url.href === window.location.href) return;
      window.history.replaceState(window.history.state, '', url);
      for (const listener of listeners) listener();
    },
    [name, fallback],
  );
  return [value, setValue];
}
