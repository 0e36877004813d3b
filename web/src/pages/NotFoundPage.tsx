import { useDocumentTitle } from '../hooks/useDocumentTitle';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no page at this address. The navigation above leads to the app’s pages.</p>
    </>
  );
}
