import { type ReactNode, useId } from 'react';

/** What the field's control carries so that its label, hint and error are read out with it. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

interface FormFieldProps {
  readonly label: string;
  /**
   * Said under the control and read out with it, also while there is an error: the rule stays
   * next to the correction.
   */
  readonly hint?: string | undefined;
  /** What to correct; while there is one, the control is marked invalid and describes it. */
  readonly error?: string | undefined;
  /** The control (an input or a select), given the props that tie it to the rest. */
  readonly children: (control: FieldControlProps) => ReactNode;
}

/** A labelled control of a form, with its hint and its error under it. */
export function FormField({ label, hint, error, children }: FormFieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint === undefined ? null : hintId, error ? errorId : null].filter(Boolean);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error !== undefined,
        'aria-describedby': described.length > 0 ? described.join(' ') : undefined,
      })}
      {hint !== undefined && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
