/**
 * `node --import <this file>`: writes a line to the file ASYNC_CONTEXT_FILE names whenever the
 * process creates an async hook or enters an `AsyncLocalStorage`, so a test can prove that the
 * server carries no async context (on Node 20 one costs every promise of the process a hook).
 */
import asyncHooks from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const file = process.env.ASYNC_CONTEXT_FILE;

/** @param {string} what */
const seen = (what) => appendFileSync(file, `${what}\n${new Error().stack}\n`);

const { createHook } = asyncHooks;
asyncHooks.createHook = (...args) => {
  seen('async_hooks.createHook');
  return createHook(...args);
};
const storage = asyncHooks.AsyncLocalStorage.prototype;
for (const method of /** @type {const} */ (['run', 'enterWith'])) {
  const original = storage[method];
  storage[method] = function (...args) {
    seen(`AsyncLocalStorage.${method}`);
    return original.apply(this, args);
  };
}
syncBuiltinESMExports();
