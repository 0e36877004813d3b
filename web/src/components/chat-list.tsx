import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { deleteChat, listChats } from '../api/chats';
import { describeError, isAbort } from '../api/http';
import type { ChatSummary } from '../api/types';

interface ChatList {
  /** Undefined until the first load answers. */
  chats: ChatSummary[] | undefined;
  error: string | undefined;
  /** Reads the list again (after an answer started or renamed a chat). */
  refresh: () => void;
  remove: (chatId: string) => Promise<void>;
}

const ChatListContext = createContext<ChatList | undefined>(undefined);

/** The caller's chats, shared by the sidebar and the ask page (which refreshes it after an answer). */
export function ChatListProvider({ children }: { children: ReactNode }) {
  const [chats, setChats] = useState<ChatSummary[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const loading = useRef<AbortController | undefined>(undefined);

  const refresh = useCallback(() => {
    loading.current?.abort();
    const controller = new AbortController();
    loading.current = controller;
    listChats(controller.signal).then(
      (list) => {
        setChats(list);
        setError(undefined);
      },
      (failure: unknown) => {
        if (!isAbort(failure)) setError(describeError(failure));
      },
    );
  }, []);

  useEffect(() => {
    refresh();
    return () => loading.current?.abort();
  }, [refresh]);

  const remove = useCallback(async (chatId: string) => {
    await deleteChat(chatId);
    setChats((current) => current?.filter((chat) => chat.chat_id !== chatId));
  }, []);

  const value = useMemo(() => ({ chats, error, refresh, remove }), [chats, error, refresh, remove]);
  return <ChatListContext.Provider value={value}>{children}</ChatListContext.Provider>;
}

export function useChatList(): ChatList {
  const list = useContext(ChatListContext);
  if (list === undefined) throw new Error('useChatList needs a ChatListProvider');
  return list;
}
