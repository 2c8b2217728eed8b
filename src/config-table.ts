import { SETTINGS } from './config.js';

/** The settings table of docs/configuration.md, generated from SETTINGS (`npm run docs:config`). */
export function configurationTable(): string {
  const rows = SETTINGS.map((s) => {
    const flag = s.flag === undefined ? '—'
      : s.kind === 'boolean' ? `\`${s.flag}\`${s.negatable ? ` / \`--no-${s.flag.slice(2)}\`` : ''}`
        : s.kind === 'trust-proxy' ? `\`${s.flag} [<value>]\`` : `\`${s.flag} <value>\``;
    const env = s.env === undefined ? '—' : `\`${s.env}\``;
    return `| ${flag} | ${env} | ${s.defaultText}${s.unit ? ` (${s.unit})` : ''} | ${s.description}${s.secret ? ' (environment only: flags are visible to other users in `ps`)' : ''} |`;
  });
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
