import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { useFocusReturn } from './use-focus-return.js';

/**
 * One entry's form, to add or (with `onCancel`) to edit: its heading names it, the service's
 * refusal is shown beside its button. An edit form takes the focus when it opens and gives it
 * back when it closes; so does an add form mounted afresh after a success (`focus`).
 */
export function EntryForm(props: {
  id: string; title: string; submit: string; busy: boolean; problem: string | undefined; focus?: boolean;
  onSubmit(form: HTMLFormElement): void; onCancel?: () => void; children: ComponentChildren;
}) {
  const { t } = useI18n();
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusReturn(heading, props.onCancel !== undefined || props.focus === true);
  const submit = (event: Event) => {
    event.preventDefault();
    props.onSubmit(event.currentTarget as HTMLFormElement);
  };
  return (
    <form class={`entry-form${props.onCancel ? ' editing' : ''}`} onSubmit={submit} aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} ref={heading} tabIndex={-1}>{props.title}</h2>
      <div class="fields">{props.children}</div>
      {props.problem ? <p class="problem" role="alert">{props.problem}</p> : null}
      <div class="buttons">
        <button type="submit" disabled={props.busy}>{props.submit}</button>
        {props.onCancel ? <button type="button" class="secondary" onClick={props.onCancel}>{t('cancel')}</button> : null}
      </div>
    </form>
  );
}
