import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import type { MessageKey } from '../../i18n/en.js';
import type { Action } from '../../parts/use-action.js';
import { CONSOLE_APPLICATION, type Application } from '../operator-api.js';
import { ConfirmBox } from '../parts/confirm-box.js';

export type SecretKind = 'client' | 'sign' | 'both';
const KINDS: readonly SecretKind[] = ['both', 'client', 'sign'];

/**
 * Which secrets to replace, asked before: a replaced one stops working at once. A company's
 * console application has no client secret to give out (the service refuses one), so for it
 * only the sign-secret is offered.
 */
export function RotateSecrets(props: { application: Application; action: Action; onRotate(only: SecretKind): void; onCancel(): void }) {
  const { t } = useI18n();
  const isConsole = props.application.name === CONSOLE_APPLICATION;
  const [only, setOnly] = useState<SecretKind>(isConsole ? 'sign' : 'both');
  return (
    <ConfirmBox id="rotate" title={t('opRotateTitle', { name: props.application.name })} yes={t('opRotateYes')} busy={props.action.busy} problem={props.action.problem}
      onYes={() => props.onRotate(only)} onNo={props.onCancel}>
      <p>{isConsole ? t('opRotateConsole') : t('opRotateExplain')}</p>
      {isConsole ? null : (
        <fieldset class="rotate-which">
          <legend>{t('opRotateWhich')}</legend>
          {KINDS.map((k) => (
            <label class="choice" key={k}>
              <input type="radio" name="only" value={k} checked={only === k} onChange={() => setOnly(k)} />{t(`opRotate_${k}` as MessageKey)}
            </label>
          ))}
        </fieldset>
      )}
    </ConfirmBox>
  );
}
