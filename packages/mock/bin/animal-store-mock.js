#!/usr/bin/env node
// The command, in a file of its own that exists before the build: pnpm links a workspace
// package's bin at install, when dist/ is not built yet, and warns of a missing target.
import '../dist/cli.js';
