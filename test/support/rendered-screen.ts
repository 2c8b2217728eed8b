/**
 * What a terminal shows once `raw` is written to it: colours dropped, a carriage return going back
 * to the line's start, erase-line clearing it; one entry per line, the last one (after the final
 * newline) included.
 */
export function renderedScreen(raw: string): string[] {
  const lines: string[] = [''];
  // eslint-disable-next-line no-control-regex
  for (const part of raw.replace(/\x1b\[\d*(;\d+)*m/g, '').split(/(\r\n|\r|\n|\x1b\[K)/)) {
    if (part === '\r') lines[lines.length - 1] = '';
    else if (part === '\n' || part === '\r\n') lines.push('');
    else if (part !== '\x1b[K') lines[lines.length - 1] += part;
  }
  return lines;
}
