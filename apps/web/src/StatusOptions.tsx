import { PET_STATUSES } from '@animal-store/contract';

/** The contract's pet statuses as `<option>`s, each value shown capitalised. */
export function StatusOptions() {
  return PET_STATUSES.map((value) => (
    <option key={value} value={value}>
      {value[0]?.toUpperCase()}
      {value.slice(1)}
    </option>
  ));
}
