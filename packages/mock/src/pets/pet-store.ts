/** The catalogue, in memory: ids increase in creation order and are never reused. */
import { MAX_INTEGER_ID, type Pet, type PetStatus } from '@animal-store/contract';

/** A pet to store: `status` already defaulted, as the contract's NewPet schema outputs it. */
export type StoredPetInput = Omit<Pet, 'id'>;

export interface PageQuery {
  readonly limit: number;
  readonly status?: PetStatus;
  /** The id the page starts after. */
  readonly afterId: number;
}

export class PetStore {
  /**
   * In ascending id order: every pet is appended with a larger id than the last. Protected, so
   * that a store for more operations than these (the fixture contract's, in the tests) extends it.
   */
  protected readonly pets: Pet[] = [];
  #lastId = 0;

  constructor(seed: readonly StoredPetInput[]) {
    for (const pet of seed) this.add(pet);
  }

  /** The stored pet; undefined when the id range is used up (the interface answers 500). */
  add(input: StoredPetInput): Pet | undefined {
    if (this.#lastId >= MAX_INTEGER_ID) return undefined;
    this.#lastId += 1;
    const pet: Pet = {
      id: this.#lastId,
      name: input.name,
      categoryId: input.categoryId,
      status: input.status,
    };
    this.pets.push(pet);
    return { ...pet };
  }

  get(id: number): Pet | undefined {
    const pet = this.pets.find((stored) => stored.id === id);
    return pet && { ...pet };
  }

  /** At most `limit` matching pets after `afterId`, and whether more follow. */
  page({ limit, status, afterId }: PageQuery): { pets: Pet[]; more: boolean } {
    const matching = this.pets.filter(
      (pet) => pet.id > afterId && (status === undefined || pet.status === status),
    );
    return {
      pets: matching.slice(0, limit).map((pet) => ({ ...pet })),
      more: matching.length > limit,
    };
  }
}
