// The `prepare` script: `npm ci` builds everything (dist/, the packages, the console). `npx
// telematics` in a clone "installs" the package it runs from its own folder the first time
// (a `file:` entry in npm's npx cache), which runs prepare again, in place: a full rebuild under
// any service already running from this folder, whose console assets vanish while it serves
// them. When npm exec runs it and everything is built, there is nothing to do.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const BUILT = ['dist/cli/main.js', 'packages/contract/dist/index.js', 'packages/sdk/dist/index.js', 'packages/console/dist/index.html'];

if (process.env.npm_command === 'exec' && BUILT.every((file) => existsSync(file))) process.exit(0);
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
process.exit(build.status ?? 1);
