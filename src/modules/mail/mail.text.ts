import { escapeHtml } from '../../platform/http/html';

/** A piece of a message's body: a paragraph of text, or a link with its label. */
export type Block = string | { link: string; label: string };

/** The signature every message ends with. */
const SIGNATURE = '— Meetings';

/**
 * A message's body in its two forms, built from the same blocks: plain text, and HTML in which
 * every text is escaped (names, titles and places are the users'; the markup is the service's).
 */
export function bodyOf(blocks: readonly Block[]): { text: string; html: string } {
  const all = [...blocks, SIGNATURE];
  const text = all
    .map((block) => (typeof block === 'string' ? block : `${block.label}: ${block.link}`))
    .join('\n\n');
  const html = all
    .map((block) =>
      typeof block === 'string'
        ? `<p>${escapeHtml(block)}</p>`
        : `<p><a href="${escapeHtml(block.link)}">${escapeHtml(block.label)}</a></p>`,
    )
    .join('\n');
  return {
    text: `${text}\n`,
    html: `<!doctype html><html><body style="font-family: sans-serif">\n${html}\n</body></html>\n`,
  };
}
