import type { Pet, PetStatus } from '@animal-store/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { fieldDetails, isUnauthorized, retryAt, tsr } from './api';
import { PETS_QUERY_KEY } from './Catalogue';
import { FormField } from './FormField';
import { useCountdown } from './hooks/useCountdown';
import { ProblemNotice } from './ProblemNotice';
import { StatusOptions } from './StatusOptions';
import {
  checkNewPet,
  type Field,
  type FieldErrors,
  HINTS,
  isField,
  serverFieldProblem,
} from './wording';

interface AddPetFormProps {
  /** The Name input, which the phone layout's "Add an animal" control focuses. */
  readonly nameRef: RefObject<HTMLInputElement>;
  readonly onAdded: (pet: Pet) => void;
}

type Outcome =
  | { kind: 'none' }
  | { kind: 'added'; pet: Pet }
  /** The form's own checks found a field to correct: nothing was sent. */
  | { kind: 'invalid' }
  | { kind: 'refused' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'interrupted' };

/**
 * A new entry's `Idempotency-Key`: 128 random bits in hex. From `getRandomValues`, which every
 * page has; `crypto.randomUUID` exists only on secure origins (HTTPS, localhost), and the app
 * may be served over plain HTTP inside a shop.
 */
function newEntryKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function AddPetForm({ nameRef, onAdded }: AddPetFormProps) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  const [status, setStatus] = useState<PetStatus>('available');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'none' });
  const categoryRef = useRef<HTMLInputElement>(null);
  const statusRef = useRef<HTMLSelectElement>(null);
  const messageRef = useRef<HTMLDivElement>(null);
  /**
   * The entry's `Idempotency-Key`, kept until it is added or edited: a second press while the
   * first is on its way (two in one tick, before the button shows "Adding…"), or a retry after
   * an answer that never came, is the same create, which the server stores once.
   */
  const entryKey = useRef<string | null>(null);
  const sending = useRef(false);
  /**
   * Until when a 429 said the key may not send (ms), kept through edits: the next press would
   * only be refused again, and refusals count towards a ban.
   */
  const [refusedUntil, setRefusedUntil] = useState<number | null>(null);
  const waiting = useCountdown(refusedUntil) > 0;
  const titleId = useId();

  const createPet = tsr.pets.createPet.useMutation({
    onSettled: () => {
      sending.current = false;
    },
    onSuccess: async (response) => {
      entryKey.current = null;
      setOutcome({ kind: 'added', pet: response.body });
      onAdded(response.body);
      setName('');
      setErrors({});
      await queryClient.invalidateQueries({ queryKey: PETS_QUERY_KEY });
    },
    onError: (error) => {
      setRefusedUntil(retryAt(error));
      if (isUnauthorized(error)) {
        // A key is asked for in place; the form keeps its values for when it is back.
        setOutcome({ kind: 'interrupted' });
        return;
      }
      const perField: FieldErrors = {};
      let other = false;
      for (const [path, message] of Object.entries(fieldDetails(error))) {
        if (isField(path)) perField[path] = serverFieldProblem(path, message);
        else other = true;
      }
      setErrors(perField);
      if (Object.keys(perField).length > 0 && !other) {
        setOutcome({ kind: 'refused' });
        focusFirst(perField);
      } else {
        setOutcome({ kind: 'failed', error });
      }
    },
  });

  // Focus follows the outcome, once it is on screen: added, back to Name for the next animal (the
  // message is announced as a status); a failure that is not about a field, to its alert.
  useEffect(() => {
    if (outcome.kind === 'added') nameRef.current?.focus();
    else if (outcome.kind === 'failed') messageRef.current?.focus();
  }, [outcome, nameRef]);

  function focusFirst(fieldErrors: FieldErrors) {
    if (fieldErrors.name) nameRef.current?.focus();
    else if (fieldErrors.categoryId) categoryRef.current?.focus();
    else if (fieldErrors.status) statusRef.current?.focus();
  }

  /** Any edit starts a new entry: the last outcome no longer applies. */
  function edited(field: Field) {
    entryKey.current = null;
    if (outcome.kind !== 'none') setOutcome({ kind: 'none' });
    if (errors[field]) setErrors(({ [field]: _fixed, ...rest }) => rest);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (sending.current || waiting) return;
    setOutcome({ kind: 'none' });
    const checked = checkNewPet({ name, category, status });
    if (!checked.ok) {
      setErrors(checked.errors);
      // Said as an alert too: focus may already be on the field, and then moving it says nothing.
      setOutcome({ kind: 'invalid' });
      focusFirst(checked.errors);
      return;
    }
    setErrors({});
    sending.current = true;
    entryKey.current ??= newEntryKey();
    createPet.mutate({ body: checked.pet, headers: { 'idempotency-key': entryKey.current } });
  }

  const added = outcome.kind === 'added' ? outcome.pet : null;

  return (
    <section className="card add-form" aria-labelledby={titleId}>
      <h2 id={titleId}>Add an animal</h2>
      <form onSubmit={submit} noValidate>
        <FormField label="Name" hint={HINTS.name} error={errors.name}>
          {(control) => (
            <input
              {...control}
              ref={nameRef}
              name="name"
              type="text"
              autoComplete="off"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                edited('name');
              }}
            />
          )}
        </FormField>
        <FormField label="Category ID" hint={HINTS.categoryId} error={errors.categoryId}>
          {(control) => (
            <input
              {...control}
              ref={categoryRef}
              name="categoryId"
              type="text"
              inputMode="numeric"
              autoComplete="off"
              value={category}
              onChange={(event) => {
                setCategory(event.target.value);
                edited('categoryId');
              }}
            />
          )}
        </FormField>
        <FormField label="Status" error={errors.status}>
          {(control) => (
            <select
              {...control}
              ref={statusRef}
              name="status"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as PetStatus);
                edited('status');
              }}
            >
              <StatusOptions />
            </select>
          )}
        </FormField>
        {outcome.kind === 'invalid' && (
          <div className="alert alert-error" role="alert">
            Not added yet: correct the marked fields.
          </div>
        )}
        {outcome.kind === 'refused' && (
          <div className="alert alert-error" role="alert">
            The store refused the animal. Correct the marked fields.
          </div>
        )}
        {outcome.kind === 'failed' && <ProblemNotice ref={messageRef} error={outcome.error} />}
        {outcome.kind === 'interrupted' && (
          <div className="alert alert-error" role="alert">
            Not added yet: the key was refused. Once signed in again, press Add animal.
          </div>
        )}
        {/* Always there, so what appears in it is announced (once). */}
        <div role="status">
          {added && (
            <div className="alert alert-success added" data-testid="added">
              <p>
                Added{' '}
                <strong>
                  <bdi>{added.name}</bdi>
                </strong>{' '}
                as animal #{added.id}.
              </p>
              <p className="added-details">
                Category {added.categoryId} ·{' '}
                <span className={`badge badge-${added.status}`}>{added.status}</span>
              </p>
            </div>
          )}
        </div>
        <button
          type="submit"
          className="button button-primary"
          // Not `disabled`: that would take focus away from the button while the request runs.
          aria-disabled={createPet.isPending || waiting}
        >
          {createPet.isPending ? 'Adding…' : 'Add animal'}
        </button>
      </form>
    </section>
  );
}
