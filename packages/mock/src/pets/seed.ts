import { type NewPet, NewPetSchema } from '@animal-store/contract';
import type { StoredPetInput } from './pet-store.js';

/**
 * The animals `pnpm dev` seeds into an empty database (apps/server/src/development/dev-setup.ts,
 * private to the server): a mock started without a seed shows what a developer's server shows.
 */
export const DEMO_PETS: readonly NewPet[] = [
  { name: 'Biscuit', categoryId: 1, status: 'available' },
  { name: 'Pepper', categoryId: 1, status: 'pending' },
  { name: 'Mochi', categoryId: 2, status: 'available' },
  { name: 'Sir Hopsalot', categoryId: 3, status: 'sold' },
  { name: 'Kiwi', categoryId: 4, status: 'available' },
  { name: 'Nemo', categoryId: 5, status: 'pending' },
];

/** The pets to start with, each checked as createPet checks a body: a bad seed throws at once. */
export function seedPets(seed: false | readonly NewPet[] | undefined): StoredPetInput[] {
  if (seed === false) return [];
  return (seed ?? DEMO_PETS).map((pet, index) => {
    const parsed = NewPetSchema.safeParse(pet);
    if (!parsed.success) {
      const problems = parsed.error.issues.map(
        (issue) => `${issue.path.join('.')}: ${issue.message}`,
      );
      throw new TypeError(`seed pet ${index} is not a valid NewPet: ${problems.join('; ')}`);
    }
    return parsed.data;
  });
}
