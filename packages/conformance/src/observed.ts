/**
 * What the check noticed of how the deployment is set up, for the operator to compare with what
 * they meant: printed whether the rules pass or not.
 */
export class ObservedSettings {
  readonly #entries = new Map<string, string>();

  /** Keeps the first observation of `setting`: later rules see the same deployment. */
  note(setting: string, value: string): void {
    if (!this.#entries.has(setting)) this.#entries.set(setting, value);
  }

  entries(): [setting: string, value: string][] {
    return [...this.#entries];
  }
}
