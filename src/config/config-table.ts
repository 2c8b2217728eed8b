import { SETTINGS } from './settings.js';

/** The settings table of docs/configuration.md, generated from SETTINGS (`npm run docs:config`). */
export function configurationTable(): string {
  const rows = SETTINGS.map((s) => {
    const flag = s.flag === undefined ? '—'
      : s.kind === 'boolean' ? `\`${s.flag}\`${s.negatable ? ` / \`--no-${s.flag.slice(2)}\`` : ''}`
        : s.kind === 'trust-proxy' ? `\`${s.flag} [<value>]\`` : `\`${s.flag} <value>\``;
    const env = s.env === undefined ? '—' : `\`${s.env}\``;
    // A duration's unit is what a bare number counts; its default is written with a unit already.
    const unit = s.unit === undefined ? '' : s.kind === 'duration' ? ` (a bare number: ${s.unit})` : ` (${s.unit})`;
    return `| ${flag} | ${env} | ${s.defaultText}${unit} | ${s.description}${s.secret ? ' (environment only: flags are visible to other users in `ps`)' : ''} |`;
  });
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
