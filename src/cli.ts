#!/usr/bin/env node
import { exitWhenSettled } from './cli/exit-guard.js';
import { runCommandLine } from './cli/main.js';

exitWhenSettled(runCommandLine(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }), process.stderr);
