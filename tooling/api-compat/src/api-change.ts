/**
 * How a change meets the users of the last release. `review`: a TypeScript declaration changed,
 * compatibly or not; API Extractor's report diff shows how, and whoever reviews it decides.
 */
export type Impact = 'breaking' | 'non-breaking' | 'review' | 'documentation';

/** One change of a published API since the last release, as a changelog would list it. */
export interface ApiChange {
  readonly impact: Impact;
  /** What changed: an operation (`GET /v1/pets (listPets)`), an entry's TypeScript API… */
  readonly subject: string;
  /** How it changed, e.g. ``query parameter `limit`: maximum changed from 100 to 50``. */
  readonly change: string;
}
