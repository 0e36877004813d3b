import type { Mailer, MailMessage } from './mailer.js';

/** The fake: keeps every message in memory, for tests that read the link a user would click. */
export class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }
}
