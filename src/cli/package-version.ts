/** The version `telematics --version` prints: the repository's package.json, read where it is installed. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}
