// The registry this project installs from serves platform packages for Linux x64/arm64 (glibc)
// only, so `npm install` leaves the other platforms' optional packages (Biome's and Rollup's
// native binaries for macOS, Windows, musl…) out of package-lock.json, and `npm ci` then refuses
// the lock as out of sync. This adds each missing optional package back as a platform-tagged
// entry, which npm ci accepts and skips on other platforms (and fetches where it is needed).
// Run it after adding a dependency: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

const OPERATING_SYSTEMS = [
  'android',
  'darwin',
  'freebsd',
  'openbsd',
  'openharmony',
  'win32',
  'linux',
  'sunos',
  'aix',
];
const CPUS = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

function platformOf(name) {
  const base = `-${name.split('/').at(-1)}-`;
  const os = OPERATING_SYSTEMS.find((candidate) => base.includes(`-${candidate}-`));
  const cpu = CPUS.find((candidate) => base.includes(`-${candidate}-`));
  const libc = os === 'linux' ? (base.includes('musl') ? 'musl' : 'glibc') : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, meta] of Object.entries({ ...packages })) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined || packages[`${path}/${key}`] !== undefined) continue;
    const { os, cpu, libc } = platformOf(name);
    packages[key] = {
      version,
      ...(meta.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entr${added === 1 ? 'y' : 'ies'}`);
