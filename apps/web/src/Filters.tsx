import { PAGE_SIZE, PET_STATUSES, type PetStatus } from '@animal-store/contract';
import { useEffect, useId, useState } from 'react';
import { useDebouncedValue } from './hooks/useDebouncedValue';
import { StatusOptions } from './StatusOptions';

export function isStatus(value: string): value is PetStatus {
  return (PET_STATUSES as readonly string[]).includes(value);
}

export function parsePageSize(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const size = Number(text);
  return size >= PAGE_SIZE.min && size <= PAGE_SIZE.max ? size : undefined;
}

/** How long a choice must stand before it is fetched: arrowing through options, typing "100". */
export const SETTLE_MS = 400;

interface FiltersProps {
  readonly status: PetStatus | undefined;
  readonly pageSize: number;
  readonly onStatus: (status: PetStatus | undefined) => void;
  readonly onPageSize: (size: number) => void;
}

/**
 * The list's filter and page size. Each is applied once it settles (one request, not one per
 * keystroke or per option passed over), and Per page only when it is a valid size.
 */
export function Filters({ status, pageSize, onStatus, onPageSize }: FiltersProps) {
  const ids = { status: useId(), size: useId(), sizeError: useId() };
  const [statusChoice, setStatusChoice] = useState(status ?? '');
  const [sizeText, setSizeText] = useState(String(pageSize));
  const settledStatus = useDebouncedValue(statusChoice, SETTLE_MS);
  const settledSize = useDebouncedValue(sizeText, SETTLE_MS);
  const sizeInvalid = parsePageSize(sizeText) === undefined;

  useEffect(() => {
    onStatus(isStatus(settledStatus) ? settledStatus : undefined);
  }, [settledStatus, onStatus]);

  useEffect(() => {
    const size = parsePageSize(settledSize);
    if (size !== undefined) onPageSize(size);
  }, [settledSize, onPageSize]);

  return (
    <form className="filters" onSubmit={(event) => event.preventDefault()}>
      <div className="field field-inline">
        <label htmlFor={ids.status}>Filter by status</label>
        <select
          id={ids.status}
          value={statusChoice}
          onChange={(event) => setStatusChoice(event.target.value)}
        >
          <option value="">All</option>
          <StatusOptions />
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
          value={sizeText}
          aria-invalid={sizeInvalid}
          aria-describedby={sizeInvalid ? ids.sizeError : undefined}
          onChange={(event) => setSizeText(event.target.value)}
        />
      </div>
      {sizeInvalid && (
        <p id={ids.sizeError} className="field-error filters-error">
          Per page must be a whole number from {PAGE_SIZE.min} to {PAGE_SIZE.max}.
        </p>
      )}
    </form>
  );
}
