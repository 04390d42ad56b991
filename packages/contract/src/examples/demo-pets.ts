import type { Pet } from '../pets.js';

/**
 * The animals a demo starts with: `pnpm dev` seeds them into an empty database, and a mock
 * started with no seed of its own serves them, so that both show a developer the same catalogue.
 */
export const DEMO_PETS: readonly Omit<Pet, 'id'>[] = [
  { name: 'Biscuit', categoryId: 1, status: 'available' },
  { name: 'Pepper', categoryId: 1, status: 'pending' },
  { name: 'Mochi', categoryId: 2, status: 'available' },
  { name: 'Sir Hopsalot', categoryId: 3, status: 'sold' },
  { name: 'Kiwi', categoryId: 4, status: 'available' },
  { name: 'Nemo', categoryId: 5, status: 'pending' },
];
