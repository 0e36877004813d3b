import { useCallback, useEffect, useRef, useState } from 'react';
import { askQuestion } from '../api/chat';
import { getChat } from '../api/chats';
import { ApiError, describeError, isAbort } from '../api/http';
import { EarlierTurn, LatestAnswer } from '../components/ConversationTurns';
import { useChatList } from '../components/chat-list';
import { ErrorAlert, Loading } from '../components/ErrorAlert';
import { QuestionForm } from '../components/QuestionForm';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { preloadAnswerRenderer } from '../markdown/AnswerMarkdown';
import { navigate } from '../router/history';
import { Link } from '../router/Link';
import { chatPath } from '../router/routes';
import { type Turn, turnKey, turnsFromMessages } from './conversation';

type ChatLoad = { state: 'idle' } | { state: 'loading' } | { state: 'failed'; message: string };

/**
 * Ask a question and read the answer as it streams in; on /chats/{id}, a chat's history to read and
 * continue. The page keeps the chat it shows: an answer that starts a chat moves the URL to it
 * without reloading anything.
 */
export function AskPage({ chatId }: { chatId: string | undefined }) {
  // Only the pages with answers fetch the Markdown renderer (the other pages never need it): a
  // chat's history at once, a new question once typing starts, so the first page loads without it.
  useEffect(() => {
    if (chatId !== undefined) preloadAnswerRenderer();
  }, [chatId]);
  const { chats, refresh: refreshChats } = useChatList();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [loadedTitle, setLoadedTitle] = useState<string | undefined>(undefined);
  const [chatLoad, setChatLoad] = useState<ChatLoad>({ state: 'idle' });
  /** The chat whose turns are on screen (undefined: a new chat); set once they are. */
  const shownChatId = useRef<string | undefined>(undefined);
  const streamAbort = useRef<AbortController | undefined>(undefined);
  /** Where the latest question starts: brought into view when one is asked (it moves down the page). */
  const latestStart = useRef<HTMLDivElement>(null);

  const loadChat = useCallback((id: string, signal: AbortSignal) => {
    setChatLoad({ state: 'loading' });
    getChat(id, signal).then(
      (chat) => {
        shownChatId.current = id;
        setTurns(turnsFromMessages(chat.messages, id));
        setLoadedTitle(chat.title);
        setChatLoad({ state: 'idle' });
      },
      (error: unknown) => {
        if (isAbort(error)) return;
        const message =
          error instanceof ApiError && error.status === 404
            ? 'This chat does not exist (any more).'
            : describeError(error);
        setChatLoad({ state: 'failed', message });
      },
    );
  }, []);

  // Another chat in the URL (the sidebar, back/forward): show it. The chat already on screen (an
  // answer that just started it) is not read again.
  useEffect(() => {
    if (chatId === shownChatId.current) return;
    streamAbort.current?.abort();
    setTurns([]);
    setLoadedTitle(undefined);
    if (chatId === undefined) {
      shownChatId.current = undefined;
      setChatLoad({ state: 'idle' });
      return;
    }
    const controller = new AbortController();
    loadChat(chatId, controller.signal);
    return () => controller.abort();
  }, [chatId, loadChat]);

  // Leaving the page stops an answer still streaming (the service stops its work too).
  useEffect(() => () => streamAbort.current?.abort(), []);

  // By key: a stream stopped because another chat was opened must not touch that chat's turns.
  const updateTurn = useCallback((key: string, change: (turn: Turn) => Turn) => {
    setTurns((current) => current.map((turn) => (turn.key === key ? change(turn) : turn)));
  }, []);

  const ask = useCallback(
    async (question: string) => {
      const controller = new AbortController();
      streamAbort.current = controller;
      const key = turnKey();
      const updateLatest = (change: (turn: Turn) => Turn) => updateTurn(key, change);
      setTurns((current) => [...current, { key, question, answer: '', sources: [], state: 'streaming' }]);
      window.requestAnimationFrame(() => latestStart.current?.scrollIntoView({ block: 'start' }));
      // Pieces arriving within one frame are shown together: one render per frame, not per piece.
      let pending = '';
      let frame: number | undefined;
      const flush = () => {
        frame = undefined;
        const text = pending;
        pending = '';
        if (text !== '') updateLatest((turn) => ({ ...turn, answer: turn.answer + text }));
      };
      let finished = false;
      try {
        const events = askQuestion(
          shownChatId.current === undefined
            ? { content: question }
            : { content: question, chatId: shownChatId.current },
          controller.signal,
        );
        for await (const event of events) {
          if (event.type === 'answer') {
            pending += event.text;
            frame ??= window.requestAnimationFrame(flush);
          } else if (event.type === 'sources') {
            flush();
            updateLatest((turn) => ({ ...turn, sources: event.sources }));
          } else if (event.type === 'done') {
            flush();
            finished = true;
            updateLatest((turn) => ({
              ...turn,
              state: 'done',
              chatId: event.chatId,
              ...(event.messageIndex === undefined ? {} : { messageIndex: event.messageIndex }),
            }));
            refreshChats();
            if (shownChatId.current !== event.chatId) {
              shownChatId.current = event.chatId;
              navigate(chatPath(event.chatId), { replace: true, keepFocus: true });
            }
          } else {
            flush();
            finished = true;
            updateLatest((turn) => ({ ...turn, state: 'failed', error: event.message }));
          }
        }
        if (!finished) {
          flush();
          updateLatest((turn) => ({ ...turn, state: 'failed', error: 'The answer was cut off; ask again.' }));
        }
      } catch (error) {
        if (frame !== undefined) window.cancelAnimationFrame(frame);
        flush();
        if (isAbort(error)) updateLatest((turn) => ({ ...turn, state: 'stopped' }));
        else updateLatest((turn) => ({ ...turn, state: 'failed', error: describeError(error) }));
      } finally {
        if (streamAbort.current === controller) streamAbort.current = undefined;
      }
    },
    [refreshChats, updateTurn],
  );

  const stop = useCallback(() => streamAbort.current?.abort(), []);

  const rate = useCallback(
    (key: string, feedback: Turn['feedback']) => updateTurn(key, (turn) => ({ ...turn, feedback })),
    [updateTurn],
  );

  const listedTitle = chats?.find((chat) => chat.chat_id === chatId)?.title;
  const heading = chatId === undefined ? 'Ask' : (listedTitle ?? loadedTitle ?? 'Chat');
  useDocumentTitle(heading);

  const latest = turns.at(-1);
  const streaming = latest?.state === 'streaming';

  return (
    <div className="ask-page">
      <div className="page-heading">
        <h1>{heading}</h1>
        {chatId === undefined ? null : (
          <Link to="/" className="button-link">
            New chat
          </Link>
        )}
      </div>
      {chatLoad.state === 'loading' ? <Loading label="Loading the chat…" /> : null}
      {chatLoad.state === 'failed' ? (
        <ErrorAlert message={chatLoad.message}>
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              if (chatId !== undefined) loadChat(chatId, new AbortController().signal);
            }}
          >
            Try again
          </button>
        </ErrorAlert>
      ) : null}
      {turns.length === 0 && chatId === undefined ? (
        <p className="intro">
          Ask anything about your team’s documents. The answer cites its sources: hover or focus a number such
          as [1] to see the passage, select it to open the source.
        </p>
      ) : null}
      {turns.length > 1 ? (
        <div className="history">
          <h2 className="visually-hidden">Earlier in this chat</h2>
          {turns.slice(0, -1).map((turn) => (
            <EarlierTurn key={turn.key} turn={turn} onFeedback={rate} />
          ))}
        </div>
      ) : null}
      <LatestAnswer turn={latest} startRef={latestStart} onFeedback={rate} />
      {chatLoad.state === 'idle' ? (
        <QuestionForm streaming={streaming} onAsk={ask} onStop={stop} onTyping={preloadAnswerRenderer} />
      ) : null}
    </div>
  );
}
