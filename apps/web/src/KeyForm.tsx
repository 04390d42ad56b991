import { type FormEvent, useId, useRef, useState } from 'react';
import { saveKey } from './session';

interface KeyFormProps {
  readonly notice: string | null;
  /** `page`: the sign-in screen; `dialog`: asked again in place, over the kept work. */
  readonly variant: 'page' | 'dialog';
  readonly onSignedIn?: () => void;
}

export function KeyForm({ notice, variant, onSignedIn }: KeyFormProps) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const ids = { title: useId(), input: useId(), hint: useId(), error: useId(), notice: useId() };
  const Heading = variant === 'page' ? 'h1' : 'h2';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = value.trim();
    if (key === '') {
      setError('Enter your API key.');
      inputRef.current?.focus();
      return;
    }
    saveKey(key);
    onSignedIn?.();
  }

  const describedBy = [notice ? ids.notice : null, ids.hint, error ? ids.error : null]
    .filter(Boolean)
    .join(' ');

  return (
    <section
      className={variant === 'page' ? 'card key-card' : 'key-dialog-body'}
      aria-labelledby={ids.title}
    >
      <Heading id={ids.title}>
        {variant === 'page' ? 'Sign in with an API key' : 'Sign in again to continue'}
      </Heading>
      <p className="muted intro">
        {variant === 'page'
          ? 'The key stays in this browser tab only and is sent to the store with each request.'
          : 'Your list, filter and unsaved form are kept; they carry on once a key is accepted.'}
      </p>
      {notice && (
        <div id={ids.notice} className="alert alert-error" role="alert">
          {notice}
        </div>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={ids.input}>API key</label>
          <input
            ref={inputRef}
            id={ids.input}
            name="apiKey"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={value}
            onChange={(event) => {
              setValue(event.target.value);
              setError(null);
            }}
            aria-invalid={error !== null}
            aria-describedby={describedBy}
            // biome-ignore lint/a11y/noAutofocus: the only thing to do on this screen
            autoFocus
          />
          <p id={ids.hint} className="hint">
            Starts with <code>ask_</code>. Ask your administrator if you do not have one.
          </p>
          {error && (
            <p id={ids.error} className="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <button type="submit" className="button button-primary">
          Continue
        </button>
      </form>
    </section>
  );
}
