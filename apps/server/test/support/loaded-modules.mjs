/**
 * `node --import <this file>`: writes the URL of every module the process loads through the
 * module loader, one a line, to the file LOADED_MODULES_FILE names. For tests that prove what a
 * server does not load.
 */
import { register } from 'node:module';

register('./loaded-modules-hooks.mjs', import.meta.url, {
  data: { file: process.env.LOADED_MODULES_FILE },
});
