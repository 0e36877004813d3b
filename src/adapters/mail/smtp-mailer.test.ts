import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSmtpServer } from '../../../test/fakes/fake-smtp-server.js';
import { MailError } from './mailer.js';
import { SmtpMailer } from './smtp-mailer.js';

describe('SmtpMailer', () => {
  let server: FakeSmtpServer;
  beforeAll(async () => {
    server = await new FakeSmtpServer({ username: 'mailer', password: 'p@ss word' }).start();
  });
  afterAll(() => server.close());

  const mailer = (url: string) =>
    new SmtpMailer({ url, from: 'Service <no-reply@service.test>', timeoutMs: 2000 });
  const message = {
    to: 'ann@corp.test',
    subject: 'Héllo',
    text: `A long line ${'x'.repeat(200)} and ünïcode`,
  };

  it('delivers a message with authentication, decoded intact at the other end', async () => {
    await mailer(server.url({ username: 'mailer', password: 'p@ss word' })).send(message);
    const [received] = await server.waitFor(1);
    expect(received).toEqual({
      from: 'no-reply@service.test',
      to: ['ann@corp.test'],
      subject: 'Héllo',
      text: `${message.text}\n`,
    });
  });

  it('says a 4xx refusal or an unreachable server may succeed later, and a 5xx refusal will not', async () => {
    const url = server.url({ username: 'mailer', password: 'p@ss word' });
    server.refusals.push(451);
    const temporary = await mailer(url)
      .send(message)
      .catch((error: unknown) => error);
    expect(temporary).toBeInstanceOf(MailError);
    expect((temporary as MailError).retryable).toBe(true);
    server.refusals.push(550);
    const permanent = await mailer(url)
      .send(message)
      .catch((error: unknown) => error);
    expect((permanent as MailError).retryable).toBe(false);
    const wrongPassword = await mailer(server.url({ username: 'mailer', password: 'nope' }))
      .send(message)
      .catch((error: unknown) => error);
    expect((wrongPassword as MailError).retryable).toBe(false);
    const unreachable = await mailer('smtp://127.0.0.1:1')
      .send(message)
      .catch((error: unknown) => error);
    expect((unreachable as MailError).retryable).toBe(true);
  });
});
