#!/usr/bin/env node
// `knowledge-answers`: the command-line uploader (`ingest`). A separate program from the service,
// so it reads its own environment here, in one place, and passes the values down (the service
// reads process.env only in config.ts).
import { runCli } from './cli/run-cli.js';

const exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: { KNOWLEDGE_URL: process.env.KNOWLEDGE_URL, KNOWLEDGE_TOKEN: process.env.KNOWLEDGE_TOKEN },
  stderrIsTty: process.stderr.isTTY === true,
  ...(process.stderr.columns === undefined ? {} : { stderrColumns: process.stderr.columns }),
});
process.exitCode = exitCode;
