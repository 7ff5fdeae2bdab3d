import { useId, useState, type FormEvent, type ReactNode } from 'react';

/** A filter form's values: every field a string, '' meaning "any". */
export type FilterDraft = Record<string, string>;

/**
 * The fields of a list's filter form (Scans, Audit): the draft values and a labelled select or text input
 * per field. Each control is named by a `<label htmlFor>` beside it, not around it: a label around a
 * select would fold its options' text into the name ("Action" would also match "Resource type … Redaction
 * policy").
 */
export function useFilterFields<D extends FilterDraft>(initial: () => D) {
  const id = useId();
  const [draft, setDraft] = useState<D>(initial);
  const set = (field: keyof D) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: e.target.value }));
  const key = (field: keyof D) => `${id}-${String(field)}`;

  /** `options`: value → what it is called; `any`: the blank option's text, or null for none. */
  const select = (field: keyof D, label: string, options: Record<string, string>, any: string | null = 'any') => (
    <div>
      <label htmlFor={key(field)}>{label}</label>
      <select id={key(field)} value={draft[field]} onChange={set(field)}>
        {any !== null && <option value="">{any}</option>}
        {Object.entries(options).map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
  const text = (field: keyof D, label: string, placeholder: string, type = 'text') => (
    <div>
      <label htmlFor={key(field)}>{label}</label>
      <input id={key(field)} type={type} value={draft[field]} onChange={set(field)} placeholder={placeholder} />
    </div>
  );
  return { draft, setDraft, select, text };
}

/** Options named by their values. */
export const named = (values: readonly string[]): Record<string, string> =>
  Object.fromEntries(values.map((v) => [v, v]));

/**
 * The form around the fields: **Apply filters** hands the draft to `onApply` (so the list is not fetched
 * on every keystroke); **Clear** hands back an empty query.
 */
export function FilterForm({
  className,
  onApply,
  onClear,
  children,
}: {
  className: string;
  onApply: () => void;
  onClear: () => void;
  children: ReactNode;
}) {
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply();
  };
  return (
    <form className={`filter-form ${className}`} onSubmit={apply} aria-label="Filters">
      <div className="filter-grid">{children}</div>
      <div className="row">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={onClear}>
          Clear
        </button>
      </div>
    </form>
  );
}
