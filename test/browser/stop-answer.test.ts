import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { browserTestsEnabled } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  ESPRESSO_CARE,
  openFromMainNav,
  startBrowserService,
  uploadAndWait,
} from '../helpers/browser-service.js';

/**
 * The Stop button with the LLM answerer: a model that streams a few words and then never ends
 * (a fake OpenAI-compatible server). Stop must end the answer in the page and the model request
 * on the server (the service closes it when the browser goes).
 */
describe.skipIf(!browserTestsEnabled())('stopping an answer, in Chromium', () => {
  let llm: FakeOpenAiServer;
  let app: BrowserService;

  beforeAll(async () => {
    llm = await FakeOpenAiServer.start({ apiKey: 'sk-browser', models: ['small-chat'] });
    app = await startBrowserService({
      worker: true,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-browser', LLM_MODEL: 'small-chat' },
    });
  });
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it('shows Stop while the answer streams; Stop ends it in the page and at the model', async () => {
    const { page, foreignRequests, pageErrors } = await app.open();
    await createAccount(page, 'stopper@example.com');
    await uploadAndWait(page, [ESPRESSO_CARE]);
    await openFromMainNav(page, 'Ask');
    llm.chatScript = {
      reply: 'Descale it every two months with citric acid [1], then rinse.',
      chunkSize: 8,
      hangAfterChunks: 3,
    };

    await page.getByLabel('Ask a question').fill('How do I descale the espresso machine?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.getByRole('region', { name: 'Answer' }).last();
    // The first words arrive; the model then keeps the stream open, and the button says Stop.
    await answer.getByText('Descale it every').waitFor();
    const stop = page.getByRole('button', { name: 'Stop', exact: true });
    await stop.waitFor();
    expect(llm.chatRequests.at(-1)?.closedByClient).toBe(false);

    await stop.click();
    await page.getByRole('button', { name: 'Ask', exact: true }).waitFor({ timeout: 120_000 });
    // The service saw the browser go and closed its request to the model.
    await expect.poll(() => llm.chatRequests.at(-1)?.closedByClient, { timeout: 120_000 }).toBe(true);
    // What had arrived stays readable; nothing more is added.
    const shown = await answer.textContent();
    expect(shown).toContain('Descale it every');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await answer.textContent()).toBe(shown);
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 600_000);
});
