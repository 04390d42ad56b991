import type { Pet, PetStatus } from '@animal-store/contract';
import { forwardRef } from 'react';
import { useMediaQuery } from './hooks/useMediaQuery';

/** Below this width a table's four columns no longer fit: each animal becomes a list item. */
export const NARROW = '(max-width: 600px)';

interface PetListProps {
  readonly pets: readonly Pet[];
  readonly status: PetStatus | undefined;
  /** The animal just added, marked where it appears. */
  readonly highlightId: number | null;
  readonly busy: boolean;
}

/**
 * The animals: a table where there is room, a list of cards on a phone. Each row is focusable by
 * script (`data-row`), so "Load more" can move focus to the first new one.
 */
export const PetList = forwardRef<HTMLDivElement, PetListProps>(function PetList(
  { pets, status, highlightId, busy },
  ref,
) {
  const narrow = useMediaQuery(NARROW);
  const caption = `Animals${status ? ` with status ${status}` : ''}, in the order they were added`;

  if (narrow) {
    return (
      <div ref={ref} className="pet-cards" aria-busy={busy}>
        <ul aria-label={caption}>
          {pets.map((pet, index) => (
            <li
              key={pet.id}
              tabIndex={-1}
              data-row={index}
              data-pet-id={pet.id}
              className={pet.id === highlightId ? 'row-new' : undefined}
            >
              <span className="pet-name">
                <bdi>{pet.name}</bdi>
              </span>
              <span className={`badge badge-${pet.status}`}>{pet.status}</span>
              <span className="pet-meta">
                #{pet.id} · Category {pet.categoryId}
                {pet.id === highlightId && ' · just added'}
              </span>
            </li>
          ))}
        </ul>
      </div>
    );
  }

  return (
    <div ref={ref} className="table-wrap" aria-busy={busy}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              ID
            </th>
            <th scope="col">Name</th>
            <th scope="col" className="num">
              Category
            </th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {pets.map((pet, index) => (
            <tr
              key={pet.id}
              tabIndex={-1}
              data-row={index}
              data-pet-id={pet.id}
              className={pet.id === highlightId ? 'row-new' : undefined}
            >
              <td className="num mono">{pet.id}</td>
              <td className="name">
                <bdi>{pet.name}</bdi>
                {pet.id === highlightId && <span className="new-tag"> (just added)</span>}
              </td>
              <td className="num mono">{pet.categoryId}</td>
              <td>
                <span className={`badge badge-${pet.status}`}>{pet.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
});
