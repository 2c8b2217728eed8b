/**
 * The links of Markdown files, checked as GitHub would follow them: a relative link must reach a
 * file or folder inside the repository, an `#anchor` a heading of its target (GitHub's slugs), and
 * no link may leave the repository, except the loopback examples (`http://127.0.0.1:8080/…`).
 * Fenced code blocks and code spans hold no links. Pure: the caller passes the files.
 */
import { posix } from 'node:path';

export interface MarkdownLink {
  readonly target: string;
  /** 1-based line of the file the link is on. */
  readonly line: number;
}

export interface LinkProblem {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly problem: string;
}

export interface Repository {
  /** Markdown files by repository-relative path (`docs/commands.md`), with their text. */
  readonly markdown: ReadonlyMap<string, string>;
  /** Every file and folder of the repository, repository-relative (`src`, `src/config.ts`). */
  readonly paths: ReadonlySet<string>;
}

const LOOPBACK = /^https?:\/\/(localhost|127\.0\.0\.1)(?=[:/]|$)/i;
/** A scheme (`https:`, `mailto:`): the link goes somewhere else than the repository. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** Line anchors GitHub gives the lines of a file it shows as code (`#L10`, `#L10-L20`). */
const LINE_ANCHOR = /^L\d+(-L\d+)?$/;

/** The lines outside fenced code blocks (fenced lines become empty), code spans blanked unless kept. */
function proseLines(text: string, keepCodeSpans = false): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return keepCodeSpans ? line : line.replace(/(`+)(?:(?!\1).)+?\1/g, (span) => ' '.repeat(span.length));
  });
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, each space a hyphen. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (a repeated one numbered -1, -2, …) and HTML ids. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  };
  const lines = proseLines(text, true);
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) add(atx[1]!);
    else if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && i > 0 && lines[i - 1]!.trim() !== '' && !/^ {0,3}[#>|-]/.test(lines[i - 1]!)) add(lines[i - 1]!.trim());
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/gi)) anchors.add(id[1]!);
  });
  return anchors;
}

/** Every link target of a file outside code: inline links and images, references, autolinks, bare URLs, HTML. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(text).forEach((line, i) => {
    const at = (target: string) => links.push({ target, line: i + 1 });
    for (const m of line.matchAll(/\]\(\s*(?:<([^>]*)>|([^\s)]*))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) at(m[1] ?? m[2]!);
    const reference = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (reference) at(reference[1]!);
    for (const m of line.matchAll(/<((?:https?|ftp):\/\/[^>\s]+)>/gi)) at(m[1]!);
    for (const m of line.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/gi)) at(m[1]!);
    // A URL in running text is a link on GitHub too (its autolink extension); those inside `](…)` are counted above.
    for (const m of line.matchAll(/(?<![(<"=\w/])((?:https?|ftp):\/\/[^\s<>)\]]+|www\.[^\s<>)\]]+)/gi)) at(m[1]!);
  });
  return links;
}

/** What is wrong with each link of every Markdown file; empty when every link holds. */
export function linkProblems(repository: Repository): LinkProblem[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (found === undefined) anchorsOf.set(path, (found = headingAnchors(repository.markdown.get(path) ?? '')));
    return found;
  };
  const problems: LinkProblem[] = [];
  for (const [file, text] of repository.markdown) {
    for (const { target, line } of markdownLinks(text)) {
      const problem = problemOf(file, target, repository, anchors);
      if (problem !== undefined) problems.push({ file, line, target, problem });
    }
  }
  return problems;
}

function problemOf(file: string, target: string, repository: Repository, anchors: (path: string) => Set<string>): string | undefined {
  if (LOOPBACK.test(target)) return undefined;
  if (SCHEME.test(target) || /^www\./i.test(target) || target.startsWith('//')) return 'leaves the repository';
  if (target === '') return 'is empty';
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  if (pathPart.startsWith('/')) return 'is an absolute path (write it relative to the file)';
  const resolved = pathPart === '' ? file : posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(pathPart))).replace(/\/$/, '');
  if (resolved === '..' || resolved.startsWith('../')) return 'leaves the repository (a path above its root)';
  if (resolved !== '.' && !repository.paths.has(resolved)) return `points at ${resolved}, which does not exist`;
  if (anchor === undefined) return undefined;
  if (repository.markdown.has(resolved)) return anchors(resolved).has(anchor) ? undefined : `has no heading #${anchor} in ${resolved}`;
  return LINE_ANCHOR.test(anchor) ? undefined : `has an anchor #${anchor} in ${resolved}, which is not Markdown`;
}
