import { useEffect } from 'react';

export const APP_NAME = 'Knowledge answers';

/** Each page names itself in the tab and the history: "<page> · Knowledge answers". */
export function useDocumentTitle(pageTitle: string): void {
  useEffect(() => {
    document.title = `${pageTitle} · ${APP_NAME}`;
  }, [pageTitle]);
}
