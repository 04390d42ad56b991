import { useEffect, useRef } from 'react';
import { useDocumentTitle } from './hooks/useDocumentTitle';
import { KeyForm } from './KeyForm';
import { forgetKey } from './session';

/**
 * The key was refused mid-session: a modal dialog asks for one in place, over the work, which
 * stays as it was. Closing it (by signing in) returns focus to where it was.
 */
export function SessionDialog({
  notice,
  onResume,
}: {
  notice: string | null;
  onResume: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useDocumentTitle('Sign in again');

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="card key-dialog"
      aria-label="Sign in again"
      // Escape would leave the work behind a key that no longer works: sign in or sign out.
      onCancel={(event) => event.preventDefault()}
    >
      <KeyForm
        notice={notice}
        variant="dialog"
        onSignedIn={() => {
          // Closed before it is removed, so focus returns to where it was.
          dialog.current?.close();
          onResume();
        }}
      />
      <button type="button" className="button button-link" onClick={() => forgetKey(null)}>
        Sign out instead (discards the list and the form)
      </button>
    </dialog>
  );
}
