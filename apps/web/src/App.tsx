import type { Pet } from '@animal-store/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { AddPetForm } from './AddPetForm';
import { Catalogue } from './Catalogue';
import { useDocumentTitle } from './hooks/useDocumentTitle';
import { KeyForm } from './KeyForm';
import { RateLimitBadge } from './RateLimitBadge';
import { SessionDialog } from './SessionDialog';
import { forgetKey, keyStore } from './session';

function SignInPage({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
  useDocumentTitle(notice ? 'Sign in again' : 'Sign in');
  return <KeyForm notice={notice} variant="page" onSignedIn={onSignedIn} />;
}

export function App() {
  const { key, notice, interrupted } = useSyncExternalStore(keyStore.subscribe, keyStore.get);
  const queryClient = useQueryClient();
  const [signedInHere, setSignedInHere] = useState(false);
  const [lastAdded, setLastAdded] = useState<Pet | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  const signedOut = key === null && !interrupted;

  // Nothing fetched with one key is shown under another. A key refused mid-session keeps the
  // work on screen until a key is accepted again, which then fetches it all anew (resume).
  useEffect(() => {
    if (signedOut) {
      queryClient.clear();
      setLastAdded(null);
    }
  }, [signedOut, queryClient]);

  const resume = useCallback(() => {
    void queryClient.invalidateQueries();
  }, [queryClient]);

  const jumpToForm = useCallback(() => nameInput.current?.focus(), []);

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
        {!signedOut && (
          <div className="topbar-actions">
            <RateLimitBadge />
            <button type="button" className="button button-quiet" onClick={() => forgetKey(null)}>
              Change key
            </button>
          </div>
        )}
      </header>
      <main className="content">
        {signedOut ? (
          <SignInPage notice={notice} onSignedIn={() => setSignedInHere(true)} />
        ) : (
          <div className="layout">
            <Catalogue
              focusOnMount={signedInHere}
              highlightId={lastAdded?.id ?? null}
              onJumpToForm={jumpToForm}
            />
            <AddPetForm nameRef={nameInput} onAdded={setLastAdded} />
          </div>
        )}
      </main>
      {interrupted && <SessionDialog notice={notice} onResume={resume} />}
    </div>
  );
}
