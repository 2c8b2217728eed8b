import { useState } from 'preact/hooks';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { applyGeometryText, draftBody, emptyDraft, finish, geometryText, removeLastPoint, type FenceDraft } from './fence-draft.js';
import { FencePreview } from './fence-preview.js';
import { FENCE_METRES, type FenceKind } from './geofence-types.js';

const KINDS: readonly FenceKind[] = ['circle', 'polygon', 'corridor'];

export interface FenceEditorProps {
  readonly draft: FenceDraft;
  readonly busy: boolean;
  /** The service's refusal of the last save, shown as sent. */
  readonly error: Error | undefined;
  readonly plates: ReadonlyMap<string, string>;
  onDraft(draft: FenceDraft): void;
  onSave(): void;
  onCancel(): void;
}

/**
 * The form beside the map: name, description, kind, radius or width, the drawing's own buttons,
 * and the geometry as GeoJSON text so a keyboard can draw too. The map draws; this names and sizes.
 */
export function FenceEditor(props: FenceEditorProps) {
  const { t } = useI18n();
  const { draft } = props;
  const [typed, setTyped] = useState<string | undefined>(undefined);
  const [textProblem, setTextProblem] = useState<string | undefined>(undefined);
  const [missing, setMissing] = useState<string | undefined>(undefined);
  const update = (next: FenceDraft) => { setMissing(undefined); props.onDraft(next); };
  const made = draftBody(draft);
  const submit = (event: Event) => {
    event.preventDefault();
    if ('problem' in made) setMissing(t(made.problem));
    else props.onSave();
  };
  const apply = () => {
    const result = applyGeometryText(draft, typed ?? geometryText(draft));
    if ('detail' in result) { setTextProblem(t('geometryTextInvalid', { detail: result.detail })); return; }
    setTextProblem(undefined);
    setTyped(undefined);
    update(result.draft);
  };
  const metres = (key: 'radius_m' | 'width_m') => (
    <label>{t(key === 'radius_m' ? 'radiusM' : 'widthM')}
      <input type="number" name={key} required min={FENCE_METRES.min} max={FENCE_METRES.max} step="1" value={draft[key]}
        onInput={(e) => update({ ...draft, [key]: Number((e.currentTarget as HTMLInputElement).value) })} />
    </label>
  );
  return (
    <form class="fence-editor" onSubmit={submit} aria-labelledby="editor-title">
      <h2 id="editor-title">{draft.id ? t('editorEdit', { name: draft.name }) : t('editorNew')}</h2>
      <div class="fields">
        <label>{t('fenceName')}
          <input type="text" name="name" required maxLength={200} value={draft.name} onInput={(e) => update({ ...draft, name: (e.currentTarget as HTMLInputElement).value })} />
        </label>
        <label>{t('fenceKind')}
          <select name="kind" value={draft.kind} disabled={draft.id !== undefined}
            onChange={(e) => update({ ...emptyDraft((e.currentTarget as HTMLSelectElement).value as FenceKind, draft.name, draft.description), radius_m: draft.radius_m, width_m: draft.width_m })}>
            {KINDS.map((k) => <option key={k} value={k}>{t(`kind_${k}`)}</option>)}
          </select>
        </label>
        {draft.kind === 'circle' ? metres('radius_m') : null}
        {draft.kind === 'corridor' ? metres('width_m') : null}
      </div>
      <label class="wide">{t('fenceDescription')}
        <textarea name="description" rows={2} maxLength={2000} value={draft.description} onInput={(e) => update({ ...draft, description: (e.currentTarget as HTMLTextAreaElement).value })} />
      </label>
      <p class="muted" id="draw-help">{t(`drawHelp_${draft.kind}`)}</p>
      {draft.holes.length > 0 ? <p class="notice" role="note">{t('holesKept', { n: draft.holes.length })}</p> : null}
      {draft.kind === 'circle' ? null : (
        <div class="buttons">
          <span class="muted" role="status" data-points={draft.points.length}>{t('pointsDrawn', { n: draft.points.length })}</span>
          {draft.kind === 'polygon' && !draft.closed ? <button type="button" disabled={draft.points.length < 3} onClick={() => update(finish(draft))}>{t('finishPolygon')}</button> : null}
          <button type="button" disabled={draft.points.length === 0} onClick={() => update(removeLastPoint(draft))}>{t('removeLastPoint')}</button>
        </div>
      )}
      <label class="wide">{t('geometryText')}
        <textarea name="geometry" rows={3} spellcheck={false} aria-describedby="geometry-help" value={typed ?? geometryText(draft)} onInput={(e) => setTyped((e.currentTarget as HTMLTextAreaElement).value)} />
      </label>
      <p class="muted" id="geometry-help">{t('geometryTextHelp')}</p>
      <div class="buttons">
        <button type="button" onClick={apply}>{t('applyGeometry')}</button>
      </div>
      {textProblem ? <p class="problem" role="alert">{textProblem}</p> : null}
      {missing ? <p class="problem" role="alert">{missing}</p> : null}
      {props.error ? <Problem error={props.error} /> : null}
      <div class="buttons">
        <button type="submit" disabled={props.busy}>{props.busy ? t('saving') : t('save')}</button>
        <button type="button" class="secondary" onClick={props.onCancel}>{t('cancel')}</button>
      </div>
      <FencePreview body={'body' in made ? made.body : undefined} plates={props.plates} />
    </form>
  );
}
