#!/usr/bin/env node
import { runCommandLine } from './cli/main.js';

runCommandLine(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
