import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root, where README.md and docs/ are. */
export const ROOT = join(__dirname, '..', '..');

/** A fenced code block of a markdown file. */
export interface CodeBlock {
  /** Its info string's language (`sh`, `graphql`, ...), or '' when it names none. */
  lang: string;
  code: string;
  /** The 1-based line of its opening fence. */
  line: number;
  /** The heading it sits under (its text), '' before the first heading. */
  heading: string;
}

/** A heading of a markdown file, outside code blocks. */
export interface Heading {
  level: number;
  text: string;
  line: number;
}

/** A markdown file of the repository, by its path from the root. */
export function readDoc(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Lines of `text` with whether each is inside a fenced block (fences themselves count as in). */
function scan(text: string): { line: string; fenced: boolean }[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return { line, fenced: true };
    }
    return { line, fenced };
  });
}

export function headings(text: string): Heading[] {
  return scan(text).flatMap(({ line, fenced }, index) => {
    const match = fenced ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    return match ? [{ level: match[1]!.length, text: match[2]!, line: index + 1 }] : [];
  });
}

export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  let heading = '';
  let open: { lang: string; line: number; body: string[] } | null = null;
  lines.forEach((line, index) => {
    const fence = /^\s*```\s*([\w-]*)/.exec(line);
    if (open) {
      if (fence && /^\s*```\s*$/.test(line)) {
        blocks.push({ lang: open.lang, code: open.body.join('\n'), line: open.line, heading });
        open = null;
      } else {
        open.body.push(line);
      }
      return;
    }
    if (fence) {
      open = { lang: fence[1] ?? '', line: index + 1, body: [] };
      return;
    }
    const title = /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (title) {
      heading = title[1]!;
    }
  });
  return blocks;
}

/** The text under the heading named `title`, up to the next heading of its level or above. */
export function section(text: string, title: string): string {
  const all = headings(text);
  const start = all.find((heading) => heading.text === title);
  if (!start) {
    throw new Error(`no heading "${title}"`);
  }
  const end = all.find((heading) => heading.line > start.line && heading.level <= start.level);
  const lines = text.split('\n');
  return lines.slice(start.line, end ? end.line - 1 : lines.length).join('\n');
}

/**
 * The anchor GitHub gives a heading: lower-cased, markup and punctuation dropped (letters,
 * digits, spaces, `-` and `_` kept), spaces turned into hyphens; a repeated one gets `-1`, `-2`...
 */
export function slug(text: string): string {
  return text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Every anchor of a file's headings, with GitHub's suffixes for repeated ones. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings(text)) {
    const base = slug(heading.text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/**
 * The sections whose `sh` blocks a test runs as written (first-meeting.test.ts): any command goes
 * there, since the test shows it works.
 */
export const EXECUTED_SH_SECTIONS: readonly { file: string; heading: string }[] = [
  { file: 'README.md', heading: 'On REST, with curl' },
  { file: 'docs/api.md', heading: 'Retries: `Idempotency-Key`' },
  { file: 'docs/api.md', heading: 'Conditional reads: `ETag` and `If-None-Match`' },
];
