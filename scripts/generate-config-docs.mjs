// Rewrites the generated settings table of docs/configuration.md from src/config/settings.ts (via dist/).
import { readFileSync, writeFileSync } from 'node:fs';
import { configurationTable } from '../dist/config/config-table.js';

const file = new URL('../docs/configuration.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const begin = '<!-- settings:begin -->';
const end = '<!-- settings:end -->';
const [head, rest] = text.split(begin);
const [, tail] = rest.split(end);
writeFileSync(file, `${head}${begin}\n${configurationTable()}\n${end}${tail}`);
console.log('docs/configuration.md updated');
