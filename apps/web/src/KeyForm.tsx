import { type FormEvent, useId, useState } from 'react';
import { saveKey } from './session';

export function KeyForm({ notice }: { notice: string | null }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const key = value.trim();
    if (key === '') {
      setError('Enter your API key.');
      return;
    }
    saveKey(key);
  }

  return (
    <section className="card key-card" aria-labelledby={`${inputId}-title`}>
      <h1 id={`${inputId}-title`}>Sign in with an API key</h1>
      <p className="muted">
        The key stays in this browser tab only and is sent to the store with each request.
      </p>
      {notice && (
        <div className="alert alert-error" role="alert">
          {notice}
        </div>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={inputId}>API key</label>
          <input
            id={inputId}
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
            aria-describedby={error ? `${hintId} ${errorId}` : hintId}
            // biome-ignore lint/a11y/noAutofocus: the only thing to do on this screen
            autoFocus
          />
          <p id={hintId} className="hint">
            Starts with <code>ask_</code>. Ask your administrator if you do not have one.
          </p>
          {error && (
            <p id={errorId} className="field-error">
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
