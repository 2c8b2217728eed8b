/**
 * The one table `npm run bench` prints. Every suite returns figures; a figure is the service's
 * number beside the floor measured in the same run, their ratio, and the target the ratio (or, for
 * counts such as errors, the service's number itself) is judged against.
 */

/**
 * @typedef {object} Figure
 * @property {string} section   e.g. "SQLite" or "PostgreSQL"
 * @property {string} suite     which benchmark produced it
 * @property {string} name      what was measured, with its unit
 * @property {number} service   the service's number
 * @property {number} [floor]   the floor's number, measured in the same run
 * @property {number} [ratio]   the ratio judged, when it is not service / floor (load.mjs's
 *                              pairedRatio: the median of each pair of rounds' own ratio)
 * @property {{ on?: 'ratio' | 'service', op: '>=' | '<=' | '==', value: number }} [target]
 * @property {number} [digits]  decimals to print for service and floor
 */

export const ratioOf = (f) => f.ratio ?? (f.floor === undefined || f.floor === 0 ? undefined : f.service / f.floor);

/** 'pass', 'MISSED' or 'info' (no target). */
export function verdict(f) {
  if (!f.target) return 'info';
  const x = f.target.on === 'service' ? f.service : ratioOf(f);
  if (x === undefined || !Number.isFinite(x)) return 'MISSED';
  const { op, value } = f.target;
  const ok = op === '>=' ? x >= value : op === '<=' ? x <= value : x === value;
  return ok ? 'pass' : 'MISSED';
}

const num = (n, digits) => (n === undefined ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

function targetText(f) {
  if (!f.target) return '';
  const op = { '>=': '≥', '<=': '≤', '==': '=' }[f.target.op];
  return `${f.target.on === 'service' ? 'n ' : ''}${op} ${f.target.value}`;
}

/** Renders figures as one fixed-width table, grouped by section in first-seen order. */
export function renderTable(figures) {
  const header = ['figure', 'service', 'floor', 'ratio', 'target', 'result'];
  const sections = [...new Set(figures.map((f) => f.section))];
  const rows = figures.map((f) => {
    const digits = f.digits ?? (Math.abs(f.service) >= 100 ? 0 : 1);
    const ratio = ratioOf(f);
    return [f.section, `${f.suite}: ${f.name}`, num(f.service, digits), num(f.floor, digits), ratio === undefined ? '' : ratio.toFixed(2), targetText(f), verdict(f)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i + 1].length)));
  const line = (cells) => `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]) : c.padStart(widths[i]))).join('   ')}`;
  const out = [line(header), line(widths.map((w) => '-'.repeat(w)))];
  for (const section of sections) {
    out.push(section);
    for (const r of rows.filter((x) => x[0] === section)) out.push(line(r.slice(1)));
  }
  const missed = figures.filter((f) => verdict(f) === 'MISSED').length;
  const judged = figures.filter((f) => f.target).length;
  out.push('', `${judged - missed} of ${judged} targets met${missed ? `, ${missed} MISSED` : ''}`);
  return out.join('\n');
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
