/** The module loader's hooks of loaded-modules.mjs: each module's URL as it is loaded. */
import { appendFileSync } from 'node:fs';

/** @type {string} */
let file;

/** @param {{ file: string }} data */
export function initialize(data) {
  file = data.file;
}

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<unknown>} nextLoad
 */
export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
