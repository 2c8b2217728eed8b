import { useMemo, useState } from 'preact/hooks';
import { apiCall } from '../../api.js';
import { useI18n } from '../../i18n/i18n.js';
import { Problem } from '../../parts/problem.js';
import { useLoad } from '../../parts/use-load.js';
import { useModule } from '../../parts/use-module.js';
import { sessionMay, type Session, type Vehicle } from '../../types.js';
import { addPoint, draftBody, draftOf, emptyDraft, finish, movePoint, type FenceDraft } from './fence-draft.js';
import { FenceEditor } from './fence-editor.js';
import { FenceTable } from './fence-table.js';
import { createGeofence, deleteGeofence, listAllGeofences, replaceGeofence } from './geofences-api.js';
import { FENCE_METRES, type Geofence } from './geofence-types.js';

/**
 * The company's geofences: a table beside a map of them all; a chosen one is outlined and zoomed
 * to, and can be edited (its points dragged on the map) or deleted after a confirmation. A new
 * fence is drawn by clicking the map. Saves go to the service as they are: its 400 detail (a
 * polygon that crosses itself, a radius out of range) is shown as it was sent.
 */
export function GeofencesScreen({ session }: { session: Session }) {
  const i18n = useI18n();
  const { t } = i18n;
  const fences = useLoad(listAllGeofences, []);
  const vehicles = useLoad(() => apiCall<Vehicle[]>('GET', '/vehicle'), []);
  const plates = useMemo(() => new Map((vehicles.data ?? []).map((v) => [v.vin, v.plate])), [vehicles.data]);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState<FenceDraft | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Geofence | undefined>(undefined);
  const FenceMap = useModule(() => import('../../map/fence-edit-map.js'));
  const selected = fences.data?.find((f) => f.id === selectedId);

  const edit = (next: FenceDraft | undefined) => { setError(undefined); setDone(undefined); setDraft(next); };
  const change = (update: (d: FenceDraft) => FenceDraft) => setDraft((d) => (d ? update(d) : d));
  const save = async () => {
    if (!draft || busy) return;
    const made = draftBody(draft);
    if ('problem' in made) return;
    setBusy(true);
    setError(undefined);
    try {
      const saved = draft.id ? await replaceGeofence(draft.id, made.body) : await createGeofence(made.body);
      setDraft(undefined);
      setSelectedId(saved.id);
      setDone(t('fenceSaved', { name: saved.name }));
      fences.reload();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (fence: Geofence) => {
    setBusy(true);
    setError(undefined);
    try {
      await deleteGeofence(fence.id);
      setDeleting(undefined);
      setSelectedId(undefined);
      setDone(t('fenceDeleted', { name: fence.name }));
      fences.reload();
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  const mayWrite = sessionMay(session, 'geofences:write');
  if (fences.error && !fences.data) return <Problem error={fences.error} onRetry={fences.reload} />;
  return (
    <section class="geofences" data-ready={fences.data && !fences.loading ? 'true' : undefined} aria-labelledby="geofences-title">
      <h1 id="geofences-title">{t('geofences')}</h1>
      <div class="split">
        <div class="list">
          {mayWrite ? (
            <div class="buttons">
              <button type="button" disabled={draft !== undefined} onClick={() => { setSelectedId(undefined); edit(emptyDraft('polygon')); }}>{t('newGeofence')}</button>
            </div>
          ) : null}
          {done ? <p role="status" class="done">{done}</p> : null}
          {fences.data ? <FenceTable fences={fences.data} selectedId={selectedId} onSelect={setSelectedId} /> : <p class="loading">{t('loading')}</p>}
          {selected && !draft ? (
            <div class="fence-chosen" aria-label={selected.name} role="group">
              <p><strong>{selected.name}</strong>{selected.description ? ` · ${selected.description}` : ''}</p>
              {mayWrite ? (
                <div class="buttons">
                  <button type="button" onClick={() => edit(draftOf(selected))}>{t('editGeofence')}</button>
                  <button type="button" class="danger" onClick={() => setDeleting(selected)}>{t('deleteGeofence')}</button>
                </div>
              ) : null}
            </div>
          ) : null}
          {deleting ? (
            <div class="confirm" role="alertdialog" aria-labelledby="delete-title" aria-describedby="delete-explain">
              <h2 id="delete-title">{t('confirmDeleteTitle', { name: deleting.name })}</h2>
              <p id="delete-explain">{t('confirmDeleteExplain')}</p>
              <button type="button" class="danger" disabled={busy} onClick={() => remove(deleting)}>{t('confirmDelete')}</button>{' '}
              <button type="button" onClick={() => setDeleting(undefined)}>{t('cancel')}</button>
            </div>
          ) : null}
          {error && !draft ? <Problem error={error} /> : null}
          {draft ? (
            <FenceEditor draft={draft} busy={busy} error={error} plates={plates} onDraft={setDraft} onSave={save} onCancel={() => edit(undefined)} />
          ) : null}
        </div>
        <div class="map-pane" aria-label={t('mapOfGeofences')} role="region">
          {FenceMap && fences.data ? (
            <FenceMap.FenceEditMap
              fences={fences.data} selectedId={selectedId} draft={draft} basemap={session.basemap}
              onSelect={setSelectedId}
              onPoint={(at) => change((d) => addPoint(d, at))}
              onMove={(i, to) => change((d) => movePoint(d, i, to))}
              onRadius={(m) => change((d) => ({ ...d, radius_m: Math.min(FENCE_METRES.max, Math.max(FENCE_METRES.min, m)) }))}
              onFinish={() => change(finish)}
            />
          ) : <p class="loading">{t('loading')}</p>}
        </div>
      </div>
    </section>
  );
}
