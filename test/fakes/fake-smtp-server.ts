import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A message the server accepted, as a mail client would read it. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly text: string;
}

/**
 * A local SMTP server (nodemailer's own `smtp-server`) that speaks real SMTP: it accepts what
 * the service's SMTP client sends, decodes each message (quoted-printable and all) and keeps it,
 * or refuses with a chosen reply code (`4xx`: try later, `5xx`: never).
 */
export class FakeSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** Reply codes for the next messages, in order: each refuses one message at DATA. */
  readonly refusals: number[] = [];
  readonly #server: SMTPServer;
  readonly #waiters: (() => void)[] = [];
  #port = 0;

  constructor(options: { username?: string; password?: string } = {}) {
    const serverOptions: SMTPServerOptions = {
      secure: false,
      disabledCommands: options.username === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: options.username === undefined,
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (auth.username === options.username && auth.password === options.password) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error('Invalid username or password'));
        }
      },
      onData: (stream, session, callback) => {
        const refusal = this.refusals.shift();
        simpleParser(stream).then(
          (parsed) => {
            if (refusal !== undefined) {
              callback(Object.assign(new Error('Refused by the test'), { responseCode: refusal }));
              return;
            }
            this.received.push({
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((recipient) => recipient.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
            });
            callback();
            for (const wake of this.#waiters.splice(0)) wake();
          },
          (error: Error) => callback(error),
        );
      },
    };
    this.#server = new SMTPServer(serverOptions);
  }

  /** `smtp://[user:password@]127.0.0.1:<port>`, for SMTP_URL. */
  url(credentials?: { username: string; password: string }): string {
    const auth =
      credentials === undefined
        ? ''
        : `${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@`;
    return `smtp://${auth}127.0.0.1:${this.#port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.#port = (this.#server.server.address() as AddressInfo).port;
    return this;
  }

  /** Waits until `count` messages in all were accepted. */
  async waitFor(count: number, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} mails, got ${this.received.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
