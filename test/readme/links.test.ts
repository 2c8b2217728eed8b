/**
 * The repository's Markdown as a reader follows it: every relative link reaches a file of the
 * repository and every anchor a heading, no link leaves the repository, and the two front pages
 * stay short enough to read (README.md ≤ 250 lines, bench/RESULTS.md ≤ 200).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubSlug, headingAnchors, linkProblems, markdownLinks, type Repository } from '../support/markdown-links.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Installed, built or run-time folders: not written by hand, not part of what a clone reads. */
const SKIPPED = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage', 'test-results']);

function repositoryAt(root: string): Repository {
  const markdown = new Map<string, string>();
  const paths = new Set<string>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      paths.add(path);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) markdown.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  walk('');
  return { markdown, paths };
}

function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

function made(files: Record<string, string>, others: readonly string[] = []): Repository {
  const paths = new Set<string>(others);
  for (const path of [...Object.keys(files), ...others]) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i += 1) paths.add(parts.slice(0, i).join('/'));
  }
  return { markdown: new Map(Object.entries(files)), paths };
}

describe('the link checker', () => {
  it('when a heading holds code, punctuation, accents or repeats, then its anchor is the one GitHub makes', () => {
    expect(githubSlug('Issue 22, sixth step: why the same code measures 0.5 one run and 0.85 the next, `--only=api`, 2026-11-28'))
      .toBe('issue-22-sixth-step-why-the-same-code-measures-05-one-run-and-085-the-next---onlyapi-2026-11-28');
    expect(githubSlug('POST /vehicle-command and GET /vehicle-command/{id}')).toBe('post-vehicle-command-and-get-vehicle-commandid');
    expect(githubSlug('Why command creations miss ≥ 0.40')).toBe('why-command-creations-miss--040');
    expect(githubSlug('São Paulo, **bold** and [a link](x.md)')).toBe('são-paulo-bold-and-a-link');
    expect(githubSlug('SQLite: what a commit survives (`--sqlite-synchronous`)')).toBe('sqlite-what-a-commit-survives---sqlite-synchronous');
    expect([...headingAnchors('# Soak\n\n## Soak\n\nText\n---\n\n```\n# not a heading\n```\n<a id="kept"></a>\n## Queued ingest: `--only=queue`\n')])
      .toEqual(['soak', 'soak-1', 'text', 'kept', 'queued-ingest---onlyqueue']);
  });

  it('when links sit in code, then they are not links; in prose, every form of link is found', () => {
    const text = [
      '[a](a.md) and ![b](img/b.png "title") and [c](<c d.md>)',
      '`[not](a link)` and https://example.com/x in prose',
      '```sh',
      'curl https://example.com/in-a-fence',
      '```',
      '[ref]: docs/ref.md',
      '<https://example.org> and <a href="page.md">page</a>',
    ].join('\n');
    expect(markdownLinks(text).map((l) => `${l.line}:${l.target}`)).toEqual([
      '1:a.md', '1:img/b.png', '1:c d.md', '2:https://example.com/x', '6:docs/ref.md', '7:https://example.org', '7:page.md',
    ]);
  });

  it('when a planted link is bad, then each is reported with its file, line and reason; the good ones pass', () => {
    const repository = made({
      'README.md': [
        '# Title',
        '[fine](docs/guide.md#setting-up) [folder](src) [image](docs/shot.png) [self](#title) [code line](src/main.ts#L3)',
        '[missing file](docs/gone.md)',
        '[missing anchor](docs/guide.md#nowhere)',
        '[above the root](../shared/spec.md)',
        '[outside](https://example.com/spec) and www.example.com and [once](https://www.example.net)',
        'Open http://127.0.0.1:8080/console/ or [the docs](http://localhost:8080/docs).',
        '[absolute](/docs/guide.md)',
        '```',
        '[in a fence](https://example.com/fine-here)',
        '```',
      ].join('\n'),
      'docs/guide.md': '# Guide\n\n## Setting up\n\n[back](../README.md#title) [too far](../../x.md) [anchor in code](../src/main.ts#top)\n',
    }, ['src/main.ts', 'docs/shot.png']);
    expect(linkProblems(repository).map((p) => `${p.file}:${p.line} ${p.target}: ${p.problem}`)).toEqual([
      'README.md:3 docs/gone.md: points at docs/gone.md, which does not exist',
      'README.md:4 docs/guide.md#nowhere: has no heading #nowhere in docs/guide.md',
      'README.md:5 ../shared/spec.md: leaves the repository (a path above its root)',
      'README.md:6 https://example.com/spec: leaves the repository',
      'README.md:6 https://www.example.net: leaves the repository',
      'README.md:6 www.example.com: leaves the repository',
      'README.md:8 /docs/guide.md: is an absolute path (write it relative to the file)',
      'docs/guide.md:5 ../../x.md: leaves the repository (a path above its root)',
      'docs/guide.md:5 ../src/main.ts#top: has an anchor #top in src/main.ts, which is not Markdown',
    ]);
  });
});

describe('the repository\'s Markdown', () => {
  const repository = repositoryAt(ROOT);

  it('when every Markdown file is read, then each link reaches a file and heading inside the repository', () => {
    expect(repository.markdown.size).toBeGreaterThan(20);
    const problems = linkProblems(repository).map((p) => `${p.file}:${p.line} (${p.target}) ${p.problem}`);
    expect(problems.join('\n')).toBe('');
  });

  it('when the front pages are read, then README.md has at most 250 lines and bench/RESULTS.md at most 200', () => {
    expect(lineCount(repository.markdown.get('README.md')!)).toBeLessThanOrEqual(250);
    expect(lineCount(repository.markdown.get('bench/RESULTS.md')!)).toBeLessThanOrEqual(200);
  });
});
