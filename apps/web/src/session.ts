/**
 * The session: the API key the user typed (kept in sessionStorage, never in the bundle) and the
 * request budget the server reported on its last response. Both are tiny external stores that
 * React reads with useSyncExternalStore.
 */

const KEY_STORAGE = 'animal-store.api-key';

type Listener = () => void;

function createStore<T>(initial: T) {
  let value = initial;
  const listeners = new Set<Listener>();
  return {
    get: () => value,
    set(next: T) {
      value = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener: Listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function readStoredKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

export interface KeyState {
  readonly key: string | null;
  /** Why the user is asked for a key again, in plain words; null on first visit. */
  readonly notice: string | null;
  /**
   * The key was refused in the middle of the work (revoked, expired): what is on screen (the
   * list, the filter, a half-filled form) stays while a key is asked for in place.
   */
  readonly interrupted: boolean;
}

export const keyStore = createStore<KeyState>({
  key: readStoredKey(),
  notice: null,
  interrupted: false,
});

/** Whether the server has accepted a key in this page: a later refusal interrupts the work. */
let accepted = false;

function store(key: string | null): void {
  try {
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage may be disabled; the key then lives for this page only.
  }
}

export function saveKey(key: string): void {
  store(key);
  keyStore.set({ key, notice: null, interrupted: false });
}

/** Signs out: everything fetched with the key is dropped (see App). */
export function forgetKey(notice: string | null): void {
  store(null);
  accepted = false;
  keyStore.set({ key: null, notice, interrupted: false });
}

export function confirmKey(): void {
  accepted = true;
}

/**
 * The server refused the key: before any success, back to the key screen; after, in place. The
 * budget shown goes too: a refusal's `X-RateLimit-*` are the browser's IP's, not a key's.
 */
export function refuseKey(notice: string): void {
  rateLimitStore.set(null);
  if (!accepted) {
    forgetKey(notice);
    return;
  }
  store(null);
  keyStore.set({ key: null, notice, interrupted: true });
}

export interface RateLimit {
  readonly limit: number;
  readonly remaining: number;
  /** When the binding window resets, as a Date. */
  readonly resetAt: Date;
}

export const rateLimitStore = createStore<RateLimit | null>(null);

function wholeNumber(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text.trim())) return null;
  return Number(text.trim());
}

/** Reads `X-RateLimit-*` from any response; ignores responses that lack them. */
export function recordRateLimit(headers: Headers): void {
  const limit = wholeNumber(headers.get('x-ratelimit-limit'));
  const remaining = wholeNumber(headers.get('x-ratelimit-remaining'));
  const reset = wholeNumber(headers.get('x-ratelimit-reset'));
  if (limit === null || remaining === null || reset === null) return;
  rateLimitStore.set({ limit, remaining, resetAt: new Date(reset * 1000) });
}
