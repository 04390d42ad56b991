import { type NewPet, NewPetSchema } from '@animal-store/contract';
import { DEMO_PETS } from '@animal-store/contract/examples';
import type { StoredPetInput } from './pet-store.js';

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
