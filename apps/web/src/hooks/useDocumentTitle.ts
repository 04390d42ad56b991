import { useEffect } from 'react';

const APP_NAME = 'Animal Store';

/** Sets `document.title` to "<where> · Animal Store" while the caller is shown. */
export function useDocumentTitle(where: string): void {
  useEffect(() => {
    document.title = `${where} · ${APP_NAME}`;
  }, [where]);
}
