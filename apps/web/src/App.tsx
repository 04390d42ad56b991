import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { AddPetForm } from './AddPetForm';
import { Catalogue } from './Catalogue';
import { KeyForm } from './KeyForm';
import { RateLimitBadge } from './RateLimitBadge';
import { forgetKey, keyStore } from './session';

export function App() {
  const { key, notice } = useSyncExternalStore(keyStore.subscribe, keyStore.get);
  const queryClient = useQueryClient();

  // Nothing fetched with one key is shown under another.
  useEffect(() => {
    if (key === null) queryClient.clear();
  }, [key, queryClient]);

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            AS
          </span>
          <span className="brand-name">Animal Store</span>
          <span className="brand-sub">Catalogue</span>
        </div>
        {key !== null && (
          <div className="topbar-actions">
            <RateLimitBadge />
            <button type="button" className="button button-quiet" onClick={() => forgetKey(null)}>
              Change key
            </button>
          </div>
        )}
      </header>
      <main className="content">
        {key === null ? (
          <KeyForm notice={notice} />
        ) : (
          <div className="layout">
            <Catalogue />
            <AddPetForm />
          </div>
        )}
      </main>
    </div>
  );
}
