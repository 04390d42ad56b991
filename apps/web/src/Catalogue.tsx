import { PAGE_SIZE, type Pet, type PetStatus } from '@animal-store/contract';
import { keepPreviousData } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useLayoutEffect, useRef } from 'react';
import { nextCursor, tsr } from './api';
import { Filters, isStatus, parsePageSize } from './Filters';
import { useDocumentTitle } from './hooks/useDocumentTitle';
import { useUrlState } from './hooks/useUrlState';
import { PetList } from './PetList';
import { ProblemNotice } from './ProblemNotice';

export const PETS_QUERY_KEY = ['pets'] as const;

const parseStatus = (text: string) => (isStatus(text) ? text : undefined);

interface CatalogueProps {
  /** Move focus to the heading once shown: the user has just signed in. */
  readonly focusOnMount: boolean;
  /** The animal just added, highlighted if it is in the loaded pages. */
  readonly highlightId: number | null;
  /** On phones, where the add form is below the list: a control at the top that goes to it. */
  readonly onJumpToForm: () => void;
}

export function Catalogue({ focusOnMount, highlightId, onJumpToForm }: CatalogueProps) {
  // The filter and the page size live in the URL, so a reload or a shared link keeps them.
  const [status, setStatus] = useUrlState<PetStatus | undefined>('status', parseStatus, undefined);
  const [pageSize, setPageSize] = useUrlState<number>('limit', parsePageSize, PAGE_SIZE.default);
  const ids = { title: useId(), summary: useId() };
  const heading = useRef<HTMLHeadingElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const problem = useRef<HTMLDivElement>(null);
  /** The index of the first row of the page being loaded by "Load more", to focus it. */
  const focusRow = useRef<number | null>(null);

  useDocumentTitle(status ? `${status[0]?.toUpperCase()}${status.slice(1)} animals` : 'Animals');

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
    // A new filter keeps the current rows on screen (marked busy) until its first page arrives.
    placeholderData: keepPreviousData,
  });

  const rows: Pet[] = pets.data?.pages.flatMap((page) => page.body) ?? [];
  // While a new filter loads, the rows on screen are still the previous filter's.
  const shownStatus = useRef(status);
  if (!pets.isPlaceholderData) shownStatus.current = status;
  const updating = pets.isPlaceholderData || (pets.isFetching && !pets.isFetchingNextPage);

  useEffect(() => {
    if (focusOnMount) heading.current?.focus();
  }, [focusOnMount]);

  // After "Load more": focus the first new row, once it is there.
  useLayoutEffect(() => {
    const index = focusRow.current;
    if (index === null || rows.length <= index) return;
    focusRow.current = null;
    list.current?.querySelector<HTMLElement>(`[data-row="${index}"]`)?.focus();
  }, [rows.length]);

  const loadMore = useCallback(() => {
    if (pets.isFetchingNextPage) return;
    focusRow.current = rows.length;
    void pets.fetchNextPage();
  }, [pets, rows.length]);

  const retry = useCallback(() => void pets.refetch(), [pets]);

  // An error takes focus if focus was on something it replaced (the list, "Load more").
  useEffect(() => {
    if ((pets.isError || pets.isFetchNextPageError) && document.activeElement === document.body) {
      problem.current?.focus();
    }
  }, [pets.isError, pets.isFetchNextPageError]);

  const changeStatus = useCallback((next: PetStatus | undefined) => setStatus(next), [setStatus]);

  // Said once per change: while a new filter loads, the old summary stands (no "Loading" chatter).
  const summary = `Showing ${rows.length}${shownStatus.current ? ` ${shownStatus.current}` : ''} ${rows.length === 1 ? 'animal' : 'animals'}${pets.hasNextPage ? '' : ' (all of them)'}`;

  return (
    <section className="card catalogue" aria-labelledby={ids.title}>
      <div className="card-header">
        <h1 id={ids.title} ref={heading} tabIndex={-1}>
          Animals
        </h1>
        <button type="button" className="button jump-to-form" onClick={onJumpToForm}>
          Add an animal
        </button>
        <Filters
          status={status}
          pageSize={pageSize}
          onStatus={changeStatus}
          onPageSize={setPageSize}
        />
      </div>

      {pets.isPending ? (
        <p className="state" role="status">
          <span className="spinner" aria-hidden="true" /> Loading animals…
        </p>
      ) : pets.isError && rows.length === 0 ? (
        <ProblemNotice ref={problem} error={pets.error} onRetry={retry} retryWhenAllowed />
      ) : rows.length === 0 ? (
        <p className="state empty" role="status">
          {status
            ? `No ${status} animals in the catalogue.`
            : 'No animals in the catalogue yet. Add the first one with the form.'}
        </p>
      ) : (
        <>
          {updating && (
            <p className="updating" aria-hidden="true">
              <span className="spinner" /> Updating…
            </p>
          )}
          <PetList
            ref={list}
            pets={rows}
            status={shownStatus.current}
            highlightId={highlightId}
            busy={updating}
          />
          <div className="table-footer">
            <p className="muted" role="status" id={ids.summary} data-testid="shown-count">
              {summary}
            </p>
            {pets.hasNextPage && !pets.isFetchNextPageError && (
              <button
                type="button"
                className="button"
                // Not `disabled`: that would take focus away from the button while it loads.
                aria-disabled={pets.isFetchingNextPage}
                onClick={loadMore}
              >
                {pets.isFetchingNextPage ? 'Loading…' : 'Load more'}
              </button>
            )}
          </div>
          {pets.isFetchNextPageError && (
            <ProblemNotice ref={problem} error={pets.error} onRetry={loadMore} retryWhenAllowed />
          )}
          {pets.isError && !pets.isFetchNextPageError && (
            <ProblemNotice ref={problem} error={pets.error} onRetry={retry} retryWhenAllowed />
          )}
        </>
      )}
    </section>
  );
}
