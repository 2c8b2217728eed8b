/**
 * A rule's weekly schedule: its time zone (America/Sao_Paulo unless changed) and its windows,
 * each with its days and a from/to as HH:MM local time (`to` may be 24:00, so plain text fields
 * rather than time inputs, which stop at 23:59).
 */
import type { MessageKey } from '../../i18n/en.js';
import { useI18n } from '../../i18n/i18n.js';
import { DAYS, type ScheduleDay } from './alert-types.js';
import { WORKING_HOURS, type WindowForm } from './rule-form.js';

export function ScheduleEditor(props: { timeZone: string; windows: readonly WindowForm[]; onZone(zone: string): void; onWindows(windows: WindowForm[]): void }) {
  const { t } = useI18n();
  const change = (index: number, next: Partial<WindowForm>) => props.onWindows(props.windows.map((w, i) => (i === index ? { ...w, ...next } : w)));
  const toggle = (index: number, day: ScheduleDay, on: boolean) => {
    const days = props.windows[index]!.days;
    change(index, { days: on ? DAYS.filter((d) => d === day || days.includes(d)) : days.filter((d) => d !== day) });
  };
  return (
    <div class="schedule">
      <label>{t('scheduleZone')}
        <input type="text" name="time_zone" value={props.timeZone} onInput={(e) => props.onZone((e.currentTarget as HTMLInputElement).value)} />
      </label>
      {props.windows.map((w, index) => (
        <fieldset key={index} class="window">
          <legend>{t('scheduleWindow', { n: index + 1 })}</legend>
          <div class="days">
            {DAYS.map((day) => (
              <label key={day}>
                <input type="checkbox" name={`window-${index}-${day}`} checked={w.days.includes(day)} onChange={(e) => toggle(index, day, (e.currentTarget as HTMLInputElement).checked)} />
                {t(`day_${day}` as MessageKey)}
              </label>
            ))}
          </div>
          <label>{t('scheduleFrom')}
            <input type="text" name={`window-${index}-from`} inputMode="numeric" placeholder="HH:MM" size={6} value={w.from} onInput={(e) => change(index, { from: (e.currentTarget as HTMLInputElement).value })} />
          </label>
          <label>{t('scheduleTo')}
            <input type="text" name={`window-${index}-to`} inputMode="numeric" placeholder="HH:MM" size={6} value={w.to} onInput={(e) => change(index, { to: (e.currentTarget as HTMLInputElement).value })} />
          </label>
          {props.windows.length > 1
            ? <button type="button" onClick={() => props.onWindows(props.windows.filter((_, i) => i !== index))}>{t('scheduleRemoveWindow', { n: index + 1 })}</button>
            : null}
        </fieldset>
      ))}
      <button type="button" onClick={() => props.onWindows([...props.windows, WORKING_HOURS])}>{t('scheduleAddWindow')}</button>
    </div>
  );
}
