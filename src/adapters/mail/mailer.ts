/** One plain-text e-mail. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** A message that could not be handed over; `retryable` says whether a later attempt can help. */
export class MailError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'MailError';
  }
}

/** Sends the service's own e-mails (verification and password-reset links). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close?(): void;
}
