// The compiled service reads its SQL migrations beside its own code.
import { cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/src/db/migrations', { recursive: true });
