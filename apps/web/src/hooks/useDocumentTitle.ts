import { useEffect } from 'react';

const APP_NAME = 'Animal Store';

/**
 * Sets `document.title` to "<where> · Animal Store" while the caller is shown; the title it
 * replaced comes back when the caller goes (a dialog closing returns to the page's title).
 */
export function useDocumentTitle(where: string): void {
  useEffect(() => {
    const previous = document.title;
    document.title = `${where} · ${APP_NAME}`;
    return () => {
      document.title = previous;
    };
  }, [where]);
}
