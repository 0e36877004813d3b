import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The browser tests drive the app as `npm start` serves it: built into dist/web. The build is
 * incremental (scripts/build.mjs skips it while web/ is unchanged), so this costs a second then.
 */
export default function buildWebApp(): void {
  const root = path.resolve(import.meta.dirname, '../..');
  const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build failed (exit ${result.status})`);
}
