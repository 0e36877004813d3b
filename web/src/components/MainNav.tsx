import { useLocation } from '../router/history';
import { Link } from '../router/Link';

interface MainNavProps {
  /** The section the current page belongs to, marked aria-current. */
  current: 'ask' | 'documents' | undefined;
}

/** The app's sections. Only pages that exist are linked. */
export function MainNav({ current }: MainNavProps) {
  // Index status, Connectors, Members and Access tokens mark their links by path (AppShell's `section` names only ask and documents).
  const path = useLocation().pathname.replace(/\/+$/, '');
  const onJobs = path === '/jobs';
  const onConnectors = path === '/connectors';
  const onMembers = path === '/members';
  const onTokens = path === '/tokens';
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
        <li>
          <Link to="/jobs" aria-current={onJobs ? 'page' : undefined}>
            Index status
          </Link>
        </li>
        <li>
          <Link to="/connectors" aria-current={onConnectors ? 'page' : undefined}>
            Connectors
          </Link>
        </li>
        <li>
          <Link to="/members" aria-current={onMembers ? 'page' : undefined}>
            Members
          </Link>
        </li>
        <li>
          <Link to="/tokens" aria-current={onTokens ? 'page' : undefined}>
            Access tokens
          </Link>
        </li>
      </ul>
    </nav>
  );
}
