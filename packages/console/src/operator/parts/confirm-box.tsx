import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { useFocusReturn } from './use-focus-return.js';

/** A question before a change that cannot be taken back (a key or secret replaced), asked in the page. */
export function ConfirmBox(props: {
  id: string; title: string; yes: string; busy: boolean; problem: string | undefined; onYes(): void; onNo(): void; children?: ComponentChildren;
}) {
  const { t } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  useFocusReturn(box);
  return (
    <div class="confirm" role="alertdialog" aria-labelledby={`${props.id}-title`} tabIndex={-1} ref={box}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
      {props.problem ? <p class="problem" role="alert">{props.problem}</p> : null}
      <div class="buttons">
        <button type="button" class="danger" disabled={props.busy} onClick={props.onYes}>{props.yes}</button>
        <button type="button" class="secondary" onClick={props.onNo}>{t('cancel')}</button>
      </div>
    </div>
  );
}
