import { PAGE_SIZE, PET_STATUSES, type Pet, type PetStatus } from '@animal-store/contract';
import { useId, useState } from 'react';
import { describeError, nextCursor, tsr } from './api';

export const PETS_QUERY_KEY = ['pets'] as const;

function isStatus(value: string): value is PetStatus {
  return (PET_STATUSES as readonly string[]).includes(value);
}

function parsePageSize(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const size = Number(text);
  return size >= PAGE_SIZE.min && size <= PAGE_SIZE.max ? size : null;
}

export function Catalogue() {
  const [status, setStatus] = useState<PetStatus | undefined>(undefined);
  const [pageSizeText, setPageSizeText] = useState(String(PAGE_SIZE.default));
  const [pageSize, setPageSize] = useState<number>(PAGE_SIZE.default);
  const ids = { title: useId(), status: useId(), size: useId(), sizeError: useId() };
  const pageSizeInvalid = parsePageSize(pageSizeText) === null;

  const pets = tsr.pets.listPets.useInfiniteQuery({
    queryKey: [...PETS_QUERY_KEY, { status: status ?? 'all', limit: pageSize }],
    queryData: ({ pageParam }) => ({
      query: {
        limit: pageSize,
        ...(status ? { status } : {}),
        ...(typeof pageParam === 'string' ? { cursor: pageParam } : {}),
      },
    }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage: { headers: Headers }) => nextCursor(lastPage.headers),
  });

  const rows: Pet[] = pets.data?.pages.flatMap((page) => page.body) ?? [];

  return (
    <section className="card catalogue" aria-labelledby={ids.title}>
      <div className="card-header">
        <h1 id={ids.title}>Animals</h1>
        <form className="filters" onSubmit={(event) => event.preventDefault()}>
          <div className="field field-inline">
            <label htmlFor={ids.status}>Status</label>
            <select
              id={ids.status}
              value={status ?? ''}
              onChange={(event) =>
                setStatus(isStatus(event.target.value) ? event.target.value : undefined)
              }
            >
              <option value="">All</option>
              {PET_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value[0]?.toUpperCase()}
                  {value.slice(1)}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-inline">
            <label htmlFor={ids.size}>Per page</label>
            <input
              id={ids.size}
              className="input-narrow"
              type="number"
              inputMode="numeric"
              min={PAGE_SIZE.min}
              max={PAGE_SIZE.max}
              step={1}
              value={pageSizeText}
              aria-invalid={pageSizeInvalid}
              aria-describedby={pageSizeInvalid ? ids.sizeError : undefined}
              onChange={(event) => {
                setPageSizeText(event.target.value);
                const size = parsePageSize(event.target.value);
                if (size !== null) setPageSize(size);
              }}
            />
          </div>
        </form>
      </div>
      {pageSizeInvalid && (
        <p id={ids.sizeError} className="field-error filters-error">
          Per page must be a whole number from {PAGE_SIZE.min} to {PAGE_SIZE.max}.
        </p>
      )}

      {pets.isPending ? (
        <p className="state" role="status">
          <span className="spinner" aria-hidden="true" /> Loading animals…
        </p>
      ) : pets.isError && rows.length === 0 ? (
        <div className="alert alert-error" role="alert">
          <p>{describeError(pets.error)}</p>
          <button type="button" className="button" onClick={() => pets.refetch()}>
            Try again
          </button>
        </div>
      ) : rows.length === 0 ? (
        <p className="state empty" role="status">
          {status
            ? `No ${status} animals in the catalogue.`
            : 'No animals in the catalogue yet. Add the first one with the form.'}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">
                Animals{status ? ` with status ${status}` : ''}, in the order they were added
              </caption>
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
                {rows.map((pet) => (
                  <tr key={pet.id}>
                    <td className="num mono">{pet.id}</td>
                    <td className="name">{pet.name}</td>
                    <td className="num mono">{pet.categoryId}</td>
                    <td>
                      <span className={`badge badge-${pet.status}`}>{pet.status}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="table-footer">
            <p className="muted" role="status" data-testid="shown-count">
              Showing {rows.length} {rows.length === 1 ? 'animal' : 'animals'}
              {pets.hasNextPage ? '' : ' (all of them)'}
            </p>
            {pets.isFetchNextPageError && (
              <p className="field-error" role="alert">
                {describeError(pets.error)}
              </p>
            )}
            {pets.hasNextPage && (
              <button
                type="button"
                className="button"
                onClick={() => pets.fetchNextPage()}
                disabled={pets.isFetchingNextPage}
              >
                {pets.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            )}
          </div>
        </>
      )}
      {pets.isError && rows.length > 0 && !pets.isFetchNextPageError && (
        <div className="alert alert-error" role="alert">
          {describeError(pets.error)}
        </div>
      )}
    </section>
  );
}
