import { createTransport } from 'nodemailer';
import { MailError, type Mailer, type MailMessage } from './mailer.js';

export interface SmtpMailerOptions {
  /** `smtp://[user:password@]host[:port]` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  readonly url: string;
  /** The `From:` of every message. */
  readonly from: string;
  /** Connecting, the greeting and each later silence; a stalled server fails the attempt, retryably. */
  readonly timeoutMs?: number;
}

// Connection-level failures and time-outs: the server may well take the message later.
const RETRYABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EPROXY']);

/** SMTP through nodemailer: one connection per message (a handful of mails a day, no pool to keep). */
export class SmtpMailer implements Mailer {
  readonly #transport: ReturnType<typeof createTransport>;
  readonly #from: string;

  constructor(options: SmtpMailerOptions) {
    const timeoutMs = options.timeoutMs ?? 30_000;
    this.#transport = createTransport({
      url: options.url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      // Messages are built from our own text only: no attachments or URLs to fetch.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    this.#from = options.from;
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.#transport.sendMail({
        from: this.#from,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
    } catch (error) {
      const { code, responseCode } = error as { code?: string; responseCode?: number };
      // SMTP 4xx replies are temporary by definition (RFC 5321 §4.2.1); 5xx are final.
      const retryable =
        (code !== undefined && RETRYABLE_CODES.has(code)) ||
        (responseCode !== undefined && responseCode >= 400 && responseCode < 500);
      const reason = responseCode === undefined ? (code ?? 'unknown error') : `SMTP ${responseCode}`;
      throw new MailError(`The mail server refused the message (${reason})`, retryable, { cause: error });
    }
  }

  close(): void {
    this.#transport.close();
  }
}
