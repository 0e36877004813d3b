// `npm test`: lint, type-check, then the whole suite (on PGlite, and again on PostgreSQL when
// TEST_DATABASE_URL is set).
import { spawnSync } from 'node:child_process';

const steps = [
  ['npx', ['biome', 'check', '.']],
  ['npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['npx', ['vitest', 'run', ...process.argv.slice(2)]],
];
for (const [command, args] of steps) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
