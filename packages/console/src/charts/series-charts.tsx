/**
 * Speed, fuel, battery and tyres over one window, as uPlot charts sharing one cursor (uPlot's
 * sync): moving over any chart moves the others and reports the index, which the track map
 * shows as a marker. Data is columnar, as uPlot takes it. The time axis reads in the zone the
 * user chose, as every time on screen does.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useI18n } from '../i18n/i18n.js';

export interface ChartSeries {
  readonly label: string;
  readonly unit: string;
  readonly columns: readonly { readonly label: string; readonly values: readonly (number | null)[]; readonly colour: string }[];
}

const WIDTH = 640;
const HEIGHT = 160;

export function SeriesCharts(props: { times: readonly number[]; charts: readonly ChartSeries[]; onCursor(index: number | undefined): void }) {
  const i18n = useI18n();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const started = performance.now();
    const sync = uPlot.sync(`window-${Math.random()}`);
    const width = Math.max(320, Math.min(WIDTH, box.current!.clientWidth - 8));
    const plots = props.charts.map((chart) => {
      const holder = document.createElement('figure');
      holder.className = 'chart';
      const caption = document.createElement('figcaption');
      caption.textContent = `${chart.label} (${chart.unit})`;
      holder.append(caption);
      box.current!.append(holder);
      return new uPlot({
        width, height: HEIGHT,
        cursor: { sync: { key: sync.key, setSeries: false }, drag: { x: false, y: false } },
        legend: { show: true },
        scales: { x: { time: true } },
        axes: [{ values: (_u, ticks) => ticks.map((t) => i18n.clock(t * 1000)) }, {}],
        series: [{ label: i18n.t('chartTime'), value: (_u, v) => (v === null ? '—' : i18n.clock(v * 1000)) }, ...chart.columns.map((c) => ({ label: c.label, stroke: c.colour, width: 1.5, spanGaps: false }))],
        hooks: { setCursor: [(u) => props.onCursor(u.cursor.idx ?? undefined)] },
      }, [props.times as number[], ...chart.columns.map((c) => c.values as (number | null)[])], holder);
    });
    // The render time of all charts, for the console benchmark (bench/suites/console.mjs).
    requestAnimationFrame(() => { box.current?.setAttribute('data-rendered-ms', String(Math.round(performance.now() - started))); });
    return () => { for (const p of plots) p.destroy(); box.current?.replaceChildren(); };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.times, props.charts, i18n]);
  return <div ref={box} class="charts" data-points={props.times.length} />;
}
