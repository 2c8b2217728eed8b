import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import type { NameSet } from '../operator-api.js';

/**
 * Datapoints, commands or scopes: all of them (`*`, which takes in names the service adds later)
 * or only those ticked. Read back from the form with `nameSetOf`.
 */
export function NameSetField(props: { name: string; legend: string; names: readonly string[]; initial: NameSet }) {
  const { t } = useI18n();
  const [all, setAll] = useState(props.initial === '*');
  const ticked = props.initial === '*' ? [] : props.initial;
  return (
    <fieldset class="name-set">
      <legend>{props.legend}</legend>
      <label class="choice"><input type="radio" name={`${props.name}-mode`} value="all" checked={all} onChange={() => setAll(true)} />{t('opNameSetAll')}</label>
      <label class="choice"><input type="radio" name={`${props.name}-mode`} value="chosen" checked={!all} onChange={() => setAll(false)} />{t('opNameSetChosen')}</label>
      {all ? null : (
        <div class="names">
          {props.names.map((n) => (
            <label class="choice" key={n}><input type="checkbox" name={props.name} value={n} defaultChecked={ticked.includes(n)} /><code>{n}</code></label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

export function nameSetOf(form: HTMLFormElement, name: string): NameSet {
  const fields = new FormData(form);
  return fields.get(`${name}-mode`) === 'all' ? '*' : fields.getAll(name).map(String);
}

/** A name set as a table cell: "All", or the names. */
export function nameSetText(set: NameSet, every: string): string {
  if (set === '*') return every;
  return set.length === 0 ? '—' : set.join(', ');
}
