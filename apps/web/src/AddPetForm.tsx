import {
  NewPetSchema,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  type Pet,
  type PetStatus,
} from '@animal-store/contract';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { describeError, fieldDetails, isHttpError, tsr } from './api';
import { PETS_QUERY_KEY } from './Catalogue';

type Field = 'name' | 'categoryId' | 'status';
type FieldErrors = Partial<Record<Field, string>>;

const FIELDS: readonly Field[] = ['name', 'categoryId', 'status'];

function isField(path: string): path is Field {
  return (FIELDS as readonly string[]).includes(path);
}

/** Digits become a number; anything else goes to the schema as typed, which explains it. */
function categoryValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export function AddPetForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [category, setCategory] = useState('');
  const [status, setStatus] = useState<PetStatus>('available');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [added, setAdded] = useState<Pet | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const categoryRef = useRef<HTMLInputElement>(null);
  const ids = {
    title: useId(),
    name: useId(),
    category: useId(),
    status: useId(),
  };

  const createPet = tsr.pets.createPet.useMutation({
    onSuccess: async (response) => {
      setAdded(response.body);
      setName('');
      setErrors({});
      setFormError(null);
      await queryClient.invalidateQueries({ queryKey: PETS_QUERY_KEY });
    },
    onError: (error) => {
      const details = fieldDetails(error);
      const perField: FieldErrors = {};
      const other: string[] = [];
      for (const [path, message] of Object.entries(details)) {
        if (isField(path)) perField[path] = message;
        else other.push(`${path} ${message}`);
      }
      setErrors(perField);
      if (isHttpError(error) && error.status === 401) {
        setFormError(null);
      } else if (Object.keys(perField).length > 0 && other.length === 0) {
        setFormError('The store refused the animal. Correct the marked fields.');
      } else {
        setFormError(describeError(error));
      }
      focusFirst(perField);
    },
  });

  function focusFirst(fieldErrors: FieldErrors) {
    if (fieldErrors.name) nameRef.current?.focus();
    else if (fieldErrors.categoryId) categoryRef.current?.focus();
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAdded(null);
    setFormError(null);
    const parsed = NewPetSchema.safeParse({
      name,
      categoryId: categoryValue(category),
      status,
    });
    if (!parsed.success) {
      const fieldErrors: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const path = String(issue.path[0] ?? '');
        if (isField(path)) fieldErrors[path] ??= issue.message;
      }
      setErrors(fieldErrors);
      focusFirst(fieldErrors);
      return;
    }
    setErrors({});
    createPet.mutate({ body: parsed.data });
  }

  function describedBy(field: Field, hintId?: string) {
    const ids = [hintId, errors[field] ? `${field}-error` : undefined].filter(Boolean);
    return ids.length > 0 ? ids.join(' ') : undefined;
  }

  return (
    <section className="card add-form" aria-labelledby={ids.title}>
      <h2 id={ids.title}>Add an animal</h2>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input
            ref={nameRef}
            id={ids.name}
            name="name"
            type="text"
            autoComplete="off"
            value={name}
            onChange={(event) => setName(event.target.value)}
            aria-invalid={errors.name !== undefined}
            aria-describedby={describedBy('name', `${ids.name}-hint`)}
          />
          <p id={`${ids.name}-hint`} className="hint">
            1 to {PET_NAME_MAX_LENGTH} characters.
          </p>
          {errors.name && (
            <p id="name-error" className="field-error">
              Name {errors.name}.
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.category}>Category ID</label>
          <input
            ref={categoryRef}
            id={ids.category}
            name="categoryId"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={category}
            onChange={(event) => setCategory(event.target.value)}
            aria-invalid={errors.categoryId !== undefined}
            aria-describedby={describedBy('categoryId', `${ids.category}-hint`)}
          />
          <p id={`${ids.category}-hint`} className="hint">
            A whole number, 1 or more.
          </p>
          {errors.categoryId && (
            <p id="categoryId-error" className="field-error">
              Category ID {errors.categoryId}.
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.status}>Status</label>
          <select
            id={ids.status}
            name="status"
            value={status}
            onChange={(event) => setStatus(event.target.value as PetStatus)}
            aria-invalid={errors.status !== undefined}
            aria-describedby={describedBy('status')}
          >
            {PET_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value[0]?.toUpperCase()}
                {value.slice(1)}
              </option>
            ))}
          </select>
          {errors.status && (
            <p id="status-error" className="field-error">
              Status {errors.status}.
            </p>
          )}
        </div>
        {formError && (
          <div className="alert alert-error" role="alert">
            {formError}
          </div>
        )}
        {added && (
          <div className="alert alert-success" role="status">
            Added <strong>{added.name}</strong> as animal #{added.id}.
          </div>
        )}
        <button type="submit" className="button button-primary" disabled={createPet.isPending}>
          {createPet.isPending ? 'Adding…' : 'Add animal'}
        </button>
      </form>
    </section>
  );
}
