// @ts-check

/** A schema engine error, carrying the Prisma error code the CLI shows (P1003 …) if any. */
export class EngineError extends Error {
  /**
   * @param {string} message
   * @param {string | undefined} code
   * @param {{ isPanic?: boolean }} [options] a panic leaves the wasm instance unusable
   */
  constructor(message, code, { isPanic = false } = {}) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
    this.isPanic = isPanic;
  }
}
