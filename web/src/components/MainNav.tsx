import { Link } from '../router/Link';

interface MainNavProps {
  /** The section the current page belongs to, marked aria-current. */
  current: 'ask' | 'documents' | undefined;
}

/** The app's sections. Only pages that exist are linked (Connectors comes with its page). */
export function MainNav({ current }: MainNavProps) {
  return (
    <nav aria-label="Main" className="main-nav">
      <ul>
        <li>
          <Link to="/" aria-current={current === 'ask' ? 'page' : undefined}>
            Ask
          </Link>
        </li>
        <li>
          <Link to="/documents" aria-current={current === 'documents' ? 'page' : undefined}>
            Documents
          </Link>
        </li>
      </ul>
    </nav>
  );
}
