import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, describeError } from './api/http';
import { getCurrentUser, signOut } from './api/session';
import { onSessionExpired } from './api/session-events';
import type { CurrentUser } from './api/types';
import { AppShell } from './components/AppShell';
import { ChatsSidebar } from './components/ChatsSidebar';
import { ChatListProvider } from './components/chat-list';
import { ErrorAlert, Loading } from './components/ErrorAlert';
import { focusPageHeading } from './hooks/focus';
import { AskPage } from './pages/AskPage';
import { ConnectorsPage } from './pages/ConnectorsPage';
import { DocumentPage } from './pages/DocumentPage';
import { DocumentsPage } from './pages/DocumentsPage';
import { JobsPage } from './pages/JobsPage';
import { JoinPage } from './pages/JoinPage';
import { MembersPage } from './pages/MembersPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SignInPage } from './pages/SignInPage';
import { type AppLocation, navigate, takeKeptFocus, useLocation } from './router/history';
import { matchRoute } from './router/routes';

/** Loaded when first opened: few visits need it, so the first page's JavaScript stays small. */
const TokensPage = lazy(() =>
  import('./pages/TokensPage').then((module) => ({ default: module.TokensPage })),
);
/** An MCP client's consent page: rarer still, and standalone. */
const ConsentPage = lazy(() =>
  import('./pages/ConsentPage').then((module) => ({ default: module.ConsentPage })),
);

type Session =
  | { state: 'checking' }
  | { state: 'signed-out' }
  | { state: 'signed-in'; user: CurrentUser }
  | { state: 'unreachable'; message: string };

/** Who is signed in, asked of the service (the session cookie is HttpOnly: only the service knows). */
function useSession() {
  const [session, setSession] = useState<Session>({ state: 'checking' });

  const check = useCallback(() => {
    setSession({ state: 'checking' });
    getCurrentUser().then(
      (user) => setSession({ state: 'signed-in', user }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setSession({ state: 'signed-out' });
        else setSession({ state: 'unreachable', message: describeError(error) });
      },
    );
  }, []);

  useEffect(() => check(), [check]);
  // Any request answered 401 later on: the session ended (expired, signed out elsewhere).
  useEffect(() => onSessionExpired(() => setSession({ state: 'signed-out' })), []);

  return { session, setSession, check };
}

/** After a page change (not the first page), focus goes to its heading, as a page load would. */
function useFocusOnPageChange(pathname: string) {
  const first = useRef(true);
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    if (takeKeptFocus()) return;
    window.scrollTo(0, 0);
    focusPageHeading();
  }, [pathname]);
}

export function App() {
  const { session, setSession, check } = useSession();
  const location = useLocation();

  if (session.state === 'checking') {
    return (
      <main id="main" className="page">
        <h1 className="visually-hidden">Knowledge answers</h1>
        <p role="status" className="muted">
          Loading…
        </p>
      </main>
    );
  }
  if (session.state === 'unreachable') {
    return (
      <main id="main" className="page">
        <h1>Knowledge answers</h1>
        <ErrorAlert message={session.message}>
          <button type="button" className="button-secondary" onClick={check}>
            Try again
          </button>
        </ErrorAlert>
      </main>
    );
  }
  // An invitation's link: open signed out (that is who follows one), and signed in too.
  if (matchRoute(location.pathname).page === 'join') {
    return (
      <JoinPage
        invitation={location.searchParams.get('invitation')}
        signedInAs={session.state === 'signed-in' ? session.user.email : undefined}
        onJoined={(user) => {
          setSession({ state: 'signed-in', user });
          navigate('/', { replace: true });
        }}
      />
    );
  }
  // Signed out on any page (an MCP client's consent page too): the sign-in page, then that page.
  if (session.state === 'signed-out') {
    return <SignInPage onSignedIn={(user) => setSession({ state: 'signed-in', user })} />;
  }
  // An MCP client's authorization request: on its own, outside the app's navigation.
  if (matchRoute(location.pathname).page === 'authorize') {
    return (
      <Suspense
        fallback={
          <>
            <header className="app-header">
              <span className="brand">Knowledge answers</span>
            </header>
            <main id="main" className="page sign-in-page">
              <h1>Connect an application</h1>
              <Loading label="Loading…" />
            </main>
          </>
        }
      >
        <ConsentPage
          query={location.searchParams}
          onSwitchAccount={async () => {
            await signOut();
            setSession({ state: 'signed-out' });
          }}
        />
      </Suspense>
    );
  }

  const handleSignOut = async () => {
    await signOut();
    setSession({ state: 'signed-out' });
    navigate('/');
  };
  return (
    <ChatListProvider>
      <SignedInApp user={session.user} location={location} onSignOut={handleSignOut} />
    </ChatListProvider>
  );
}

function SignedInApp({
  user,
  location,
  onSignOut,
}: {
  user: CurrentUser;
  location: AppLocation;
  onSignOut: () => Promise<void>;
}) {
  useFocusOnPageChange(location.pathname);
  const route = matchRoute(location.pathname);

  if (route.page === 'ask' || route.page === 'chat') {
    const chatId = route.page === 'chat' ? route.chatId : undefined;
    return (
      <AppShell
        user={user}
        section="ask"
        sidebar={<ChatsSidebar activeChatId={chatId} />}
        onSignOut={onSignOut}
      >
        <AskPage chatId={chatId} />
      </AppShell>
    );
  }
  if (route.page === 'documents' || route.page === 'document') {
    const passage = Number.parseInt(location.searchParams.get('passage') ?? '', 10);
    return (
      <AppShell user={user} section="documents" onSignOut={onSignOut}>
        {route.page === 'documents' ? (
          <DocumentsPage viewerEmail={user.email} viewerEmailVerified={user.email_verified !== false} />
        ) : (
          <DocumentPage
            key={route.documentId}
            documentId={route.documentId}
            passage={Number.isNaN(passage) ? undefined : passage}
            viewerEmail={user.email}
          />
        )}
      </AppShell>
    );
  }
  if (route.page === 'connectors') {
    return (
      <AppShell user={user} section={undefined} onSignOut={onSignOut}>
        <ConnectorsPage callback={route.callback} query={location.searchParams} viewerRole={user.role} />
      </AppShell>
    );
  }
  if (route.page === 'members') {
    return (
      <AppShell user={user} section={undefined} onSignOut={onSignOut}>
        <MembersPage user={user} />
      </AppShell>
    );
  }
  if (route.page === 'tokens') {
    return (
      <AppShell user={user} section={undefined} onSignOut={onSignOut}>
        <Suspense
          fallback={
            <>
              <h1>Access tokens</h1>
              <Loading label="Loading…" />
            </>
          }
        >
          <TokensPage />
        </Suspense>
      </AppShell>
    );
  }
  if (route.page === 'jobs') {
    return (
      <AppShell user={user} section={undefined} onSignOut={onSignOut}>
        <JobsPage />
      </AppShell>
    );
  }
  return (
    <AppShell user={user} section={undefined} onSignOut={onSignOut}>
      <NotFoundPage />
    </AppShell>
  );
}
