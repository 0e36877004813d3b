/** The API's shapes the app reads, as the OpenAPI document (src/http/routes) describes them. */

/** A member's role in their team: owners and admins manage members and connections. */
export type TeamRole = 'owner' | 'admin' | 'member';

/** GET /v1/users/me: the caller's user_context. */
export interface CurrentUser {
  id: number;
  email: string;
  team_id: number;
  is_active: boolean;
  /** The caller's role in the team (absent from a service older than teams). */
  role?: TeamRole;
  /**
   * Whether the caller's address is proven (absent from an older service): until it is, documents
   * shared with the address or its domain stay closed to them.
   */
  email_verified?: boolean;
}

/** GET /v1/teams/members: one member of the caller's team. */
export interface TeamMember {
  user_id: number;
  email: string;
  name: string;
  role: TeamRole;
  joined_at: string;
}

/** GET /v1/teams/invitations: an open invitation (its code is shown only when it is made). */
export interface Invitation {
  invitation_id: number | string;
  email: string;
  role: TeamRole;
  expires_at: string;
  created_at: string;
}

/** POST /v1/teams/invitations: the new invitation, with the code its link carries. */
export interface NewInvitation {
  invitation_id: number | string;
  code: string;
  email: string;
  role: TeamRole;
  expires_at: string;
}

/** A document an answer cites (the `sources` line of a streamed answer; kept in the chat history). */
export interface CitedSource {
  title: string;
  url: string | null;
  snippet: string;
  /** The n of `[n]` in the answer. */
  citation: number;
  /** The document's file name when it has one (else its title, as answers saved before have it). */
  file_name: string;
  file_path: string;
  /** The document in this service, when the server sends it (upload without a URL: the in-app page). */
  document_id?: number | null;
  /** The cited passage of that document (its page highlights it); absent on answers saved before. */
  chunk_id?: number | null;
}

export interface ChatSummary {
  id: number;
  chat_id: string;
  title: string;
  updated_at: string;
}

/** A thumbs up or down on an answer. */
export type AnswerRating = 'up' | 'down';

export interface ChatMessage {
  role: string;
  content: string;
  timestamp: string | null;
  chat_id: string | null;
  sources?: CitedSource[];
  /** On a rated answer only. */
  feedback?: AnswerRating;
}

/** PUT /v1/chats/{chat_id}/messages/{message_index}/feedback: the rating now stored. */
export interface AnswerFeedback {
  chat_id: string;
  message_index: number;
  rating: AnswerRating | null;
}

export interface StoredChat {
  id: number;
  chat_id: string;
  title: string;
  messages: ChatMessage[];
  created_at: string;
  updated_at: string;
}

/** What the latest job that looked at a document did with it. */
export interface LastJobOutcome {
  id: string | null;
  status: string;
  reason: string | null;
  message: string | null;
  at: string | null;
}

/** Who may open a document, as its source says (Drive permissions, Confluence restrictions, an upload's visibility). */
export interface DocumentAccess {
  /** Every member of the team. */
  team: boolean;
  /** People (lower-cased e-mails). */
  emails: string[];
  /** Members whose e-mail is in one of these domains. */
  domains: string[];
  /** Groups (by e-mail or name). */
  groups: string[];
}

/** An upload's `visibility`: the whole team (the default) or the uploader alone. */
export type UploadVisibility = 'team' | 'private';

export interface DocumentSummary {
  id: number;
  external_id: string;
  title: string;
  source: string;
  /** indexed, indexing, skipped or failed: what is stored. */
  status: string;
  reason: string | null;
  chunks: number;
  last_job: LastJobOutcome | null;
  url: string | null;
  connector_id: number | null;
  mime_type: string | null;
  created_at: string | null;
  updated_at: string | null;
  indexed_at: string | null;
  /** Who may open it (absent from a service older than per-document access). */
  access?: DocumentAccess;
  /** The name of the file it came from (an upload's, a Drive file's); null when it has none. */
  file_name: string | null;
  /** Whether the caller may delete it: the web app offers Delete only then. */
  can_delete: boolean;
}

export interface DocumentPage {
  documents: DocumentSummary[];
  total: number;
  limit: number;
  offset: number;
}

export interface DocumentChunk {
  chunk_id: number;
  position: number;
  text: string;
  heading_path: string[];
}

/** GET /v1/documents/{id}: the document and its stored passages. */
export interface DocumentWithChunks {
  document: DocumentSummary;
  chunks: DocumentChunk[];
}

export interface QueuedJob {
  result_id: string;
  result_ready: boolean;
}

export interface JobFile {
  id: string;
  name: string;
  /** queued, indexing, indexed, skipped or failed. */
  status: string;
  reason: string | null;
  chunks: number;
  message: string | null;
  document_id: number | null;
}

export interface IndexJob {
  result_id: string;
  result_ready: boolean;
  /** queued, running, completed or failed. */
  status: string;
  kind: string;
  progress: { done: number; total: number; indexed: number; skipped: number; failed: number };
  error: string | null;
  files: JobFile[];
}

export interface SearchResult {
  document_id: number;
  external_id: string;
  title: string;
  /** The name its file was uploaded under (shown beside the title); null when it came as no file. */
  file_name: string | null;
  url: string | null;
  source: string;
  chunk_id: number;
  text: string;
  score: number;
}

/** One FastAPI-style validation problem of a 422. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
}

/** GET /v1/auth/methods: how people sign in to this service. */
export interface SignInMethods {
  /** Whether e-mail and password sign-in (and sign-up) is on. */
  password: boolean;
  /** The company's identity provider, when single sign-on is set up. */
  oidc: { name: string; start_url: string } | null;
}

/** GET /v1/teams/settings: the team's settings its owner and admins change. */
export interface TeamSettings {
  /** People signing in with single sign-on from these domains join the team. */
  sign_in_domains: string[];
}

/** GET /v1/users/me/tokens: one of the caller's personal access tokens (never its secret). */
export interface AccessToken {
  id: number | string;
  name: string;
  created_at: string;
  /** Null: it never expires. */
  expires_at: string | null;
  last_used_at: string | null;
}

/** POST /v1/users/me/tokens: the new token, with its secret (shown only now). */
export interface NewAccessToken {
  id: number | string;
  name: string;
  token: string;
  created_at: string;
  expires_at: string | null;
}
