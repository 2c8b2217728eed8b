/** A labelled choice among `values`, `initial` chosen; `empty` adds a first choice meaning none (value ""). */
export function SelectField(props: {
  label: string; name: string; values: readonly string[]; initial?: string | undefined; text?: (value: string) => string; empty?: string; describedBy?: string;
  onChange?: (value: string) => void;
}) {
  const text = props.text ?? ((v: string) => v);
  const initial = props.initial ?? (props.empty === undefined ? props.values[0] : '');
  return (
    <label>{props.label}
      <select name={props.name} aria-describedby={props.describedBy} onChange={(e) => props.onChange?.((e.currentTarget as HTMLSelectElement).value)}>
        {props.empty === undefined ? null : <option value="" selected={initial === ''}>{props.empty}</option>}
        {props.values.map((v) => <option key={v} value={v} selected={v === initial}>{text(v)}</option>)}
      </select>
    </label>
  );
}
