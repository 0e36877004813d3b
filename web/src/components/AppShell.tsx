import { type ReactNode, useState } from 'react';
import { describeError } from '../api/http';
import type { CurrentUser } from '../api/types';
import { MainNav } from './MainNav';

interface AppShellProps {
  user: CurrentUser;
  section: 'ask' | 'documents' | undefined;
  /** The chats sidebar, on the pages that show it. */
  sidebar?: ReactNode;
  onSignOut: () => Promise<void>;
  children: ReactNode;
}

/** Header (the app, its sections, the account), the optional sidebar and the page's <main>. */
export function AppShell({ user, section, sidebar, onSignOut, children }: AppShellProps) {
  const [signOutError, setSignOutError] = useState<string | undefined>(undefined);
  const [signingOut, setSigningOut] = useState(false);

  async function signOut() {
    setSigningOut(true);
    setSignOutError(undefined);
    try {
      await onSignOut();
    } catch (error) {
      setSignOutError(`Signing out failed: ${describeError(error)}`);
      setSigningOut(false);
    }
  }

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <span className="brand">Knowledge answers</span>
        <MainNav current={section} />
        <div className="account">
          <span className="account-email">{user.email}</span>
          <button type="button" className="button-secondary" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
          {signOutError === undefined ? null : (
            <p role="alert" className="error-text">
              {signOutError}
            </p>
          )}
        </div>
      </header>
      <div className={sidebar === undefined ? 'layout' : 'layout layout-with-sidebar'}>
        {sidebar}
        <main id="main" tabIndex={-1} className="page">
          {children}
        </main>
      </div>
    </>
  );
}
