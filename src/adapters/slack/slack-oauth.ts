/** A Slack workspace's installation of our app, from an OAuth code exchange. */
export interface SlackInstallation {
  readonly slackTeamId: string;
  readonly slackTeamName: string | null;
  readonly enterpriseId: string | null;
  readonly appId: string | null;
  readonly botUserId: string;
  readonly botToken: string;
  readonly scope: string | null;
}

/** Exchanges a Slack OAuth code (`oauth.v2.access`) for a bot installation. */
export interface SlackOAuth {
  /** Throws a `ServiceError` (`bad_gateway`) naming Slack's error when the exchange fails. */
  exchangeCode(code: string): Promise<SlackInstallation>;
}
