import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVE_MIME_TYPES, FakeDriveServer } from '../../test/fakes/fake-drive-server.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { refusal } from '../../test/helpers/use-case-harness.js';
import { browseDriveFolder, MY_DRIVE_FOLDER_ID } from './browse-drive-folder.js';

describe('browseDriveFolder', () => {
  let drive: FakeDriveServer;
  let testApp: TestApp;
  beforeAll(async () => {
    drive = await FakeDriveServer.start();
    testApp = await startTestApp({ env: { GOOGLE_DRIVE_API_URL: drive.url } });
  });
  afterAll(async () => {
    await testApp.close();
    await drive.close();
  });

  const browse = (folderId: string, pageToken?: string, accessToken = drive.accessToken) =>
    browseDriveFolder(testApp.runtime.deps, { accessToken, folderId, pageToken });

  it('lists a folder with the caller’s token: folders first, then files, each by name', async () => {
    const handbook = drive.addFolder({ name: 'Handbook', parents: [MY_DRIVE_FOLDER_ID] });
    drive.addFile({ name: 'zebra.txt', mimeType: 'text/plain', content: 'z', parents: [MY_DRIVE_FOLDER_ID] });
    drive.addFile({
      name: 'Apple notes',
      mimeType: DRIVE_MIME_TYPES.document,
      content: 'a',
      parents: [MY_DRIVE_FOLDER_ID],
    });
    drive.addFolder({ name: 'archive', parents: [MY_DRIVE_FOLDER_ID] });
    drive.addFile({
      name: 'Onboarding',
      mimeType: DRIVE_MIME_TYPES.document,
      content: '# Hi',
      parents: [handbook],
    });

    const root = await browse(MY_DRIVE_FOLDER_ID);
    expect(root.folder_id).toBe('root');
    expect(root.next_page_token).toBeNull();
    expect(root.files.map((file) => [file.name, file.is_folder])).toEqual([
      ['archive', true],
      ['Handbook', true],
      ['Apple notes', false],
      ['zebra.txt', false],
    ]);
    const inside = await browse(handbook);
    expect(inside.files).toEqual([
      expect.objectContaining({ name: 'Onboarding', mime_type: DRIVE_MIME_TYPES.document, is_folder: false }),
    ]);
  });

  it('pages through a large folder', async () => {
    const big = drive.addFolder({ name: 'Reports' });
    for (let index = 0; index < 5; index += 1) {
      drive.addFile({ name: `report-${index}.txt`, mimeType: 'text/plain', content: 'r', parents: [big] });
    }
    drive.setPageSize(3);
    try {
      const first = await browse(big);
      expect(first.files).toHaveLength(3);
      const rest = await browse(big, first.next_page_token ?? undefined);
      expect(rest.next_page_token).toBeNull();
      expect([...first.files, ...rest.files].map((file) => file.name).sort()).toEqual(
        [0, 1, 2, 3, 4].map((index) => `report-${index}.txt`),
      );
    } finally {
      drive.setPageSize(undefined);
    }
  });

  it('turns Drive’s refusals into the service’s errors, a rejected token being no 401 of ours', async () => {
    const expired = await refusal(browse(MY_DRIVE_FOLDER_ID, undefined, 'ya29.expired'), 'bad_request');
    expect(expired.message).toContain('connect Google Drive again');
    const folder = drive.addFolder({ name: 'Busy' });
    drive.failNext(folder, { status: 429, retryAfter: 7 });
    const slowDown = await refusal(browse(folder), 'too_many_requests');
    expect(slowDown.options.retryAfterSeconds).toBe(7);
  });
});
