import { useState } from 'react';
import type { ChatSummary } from '../api/types';
import { formatDate } from '../format/dates';
import { focusPageHeading } from '../hooks/focus';
import { navigate } from '../router/history';
import { Link } from '../router/Link';
import { chatPath } from '../router/routes';
import { ConfirmDialog } from './ConfirmDialog';
import { useChatList } from './chat-list';
import { ErrorAlert } from './ErrorAlert';

/**
 * The caller's chats, most recent first: each a link named by its title (the date beside it, outside
 * the link's name), and a delete button named "Delete chat <title>" that asks first.
 */
export function ChatsSidebar({ activeChatId }: { activeChatId: string | undefined }) {
  const { chats, error, refresh, remove } = useChatList();
  const [deleting, setDeleting] = useState<ChatSummary | undefined>(undefined);

  return (
    <div className="sidebar">
      <nav aria-label="Chats" className="chats-nav">
        <h2 className="sidebar-heading">Chats</h2>
        {error !== undefined ? (
          <ErrorAlert message={error}>
            <button type="button" className="button-secondary" onClick={refresh}>
              Try again
            </button>
          </ErrorAlert>
        ) : chats === undefined ? (
          <p className="muted">Loading chats…</p>
        ) : chats.length === 0 ? (
          <p className="muted">No chats yet. Your questions and their answers are kept here.</p>
        ) : (
          <ul className="chat-list">
            {chats.map((chat) => (
              <li key={chat.chat_id} className="chat-item">
                <Link
                  to={chatPath(chat.chat_id)}
                  aria-current={chat.chat_id === activeChatId ? 'page' : undefined}
                  className="chat-link"
                >
                  {chat.title}
                </Link>
                <time dateTime={chat.updated_at} className="chat-date">
                  {formatDate(chat.updated_at)}
                </time>
                <button type="button" className="button-quiet chat-delete" onClick={() => setDeleting(chat)}>
                  Delete<span className="visually-hidden"> chat {chat.title}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </nav>
      {deleting === undefined ? null : (
        <ConfirmDialog
          title="Delete this chat?"
          message={`“${deleting.title}” and its answers will be deleted for good.`}
          confirmLabel="Delete"
          onConfirm={() => remove(deleting.chat_id)}
          onClose={(confirmed) => {
            setDeleting(undefined);
            if (!confirmed) return;
            // The chat on screen is gone: a new one instead. Focus had been on the deleted row.
            if (deleting.chat_id === activeChatId) navigate('/');
            window.setTimeout(focusPageHeading);
          }}
        />
      )}
    </div>
  );
}
