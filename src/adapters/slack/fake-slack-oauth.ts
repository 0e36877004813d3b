import { ServiceError } from '../../errors.js';
import type { SlackInstallation, SlackOAuth } from './slack-oauth.js';

/** In-memory stand-in: codes map to installations; any other code is refused as Slack would. */
export class FakeSlackOAuth implements SlackOAuth {
  readonly exchangedCodes: string[] = [];

  constructor(private readonly installations: Readonly<Record<string, SlackInstallation>>) {}

  async exchangeCode(code: string): Promise<SlackInstallation> {
    this.exchangedCodes.push(code);
    const installation = this.installations[code];
    if (installation === undefined)
      throw new ServiceError('bad_gateway', 'Slack refused the OAuth code: invalid_code');
    return installation;
  }
}
