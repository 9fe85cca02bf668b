/**
 * Paragraphs from line breaks (wpautop), through @wordpress/autop, with the one step the JavaScript port
 * lacks: WordPress adds a paragraph break after a bare `<hr>`, so the text that follows gets its own
 * paragraph.
 */
import { autop as wordpressAutop } from '@wordpress/autop';
import { phpTrim } from './html.ts';

/** Text with no tag and no line break: one paragraph of it, whatever wpautop's other rules say. */
const ONE_PARAGRAPH = /^[^<\r\n]+$/;

/** Paragraphs only: `<p>` elements (no attributes) of one line of plain text each, between line breaks. */
const PARAGRAPHS = /^(?:\n*<p>[^<\r\n]*<\/p>)+\n*$/;
const PARAGRAPH = /<p>([^<\r\n]*)<\/p>/g;

/** wpautop(). */
export function autop(text: string, br = true): string {
  if (phpTrim(text) === '') return '';
  // What wpautop makes of a single line of plain text (a generated excerpt, most titles of paragraphs),
  // without its two dozen passes over it; text that is only white space is left to them.
  if (ONE_PARAGRAPH.test(text) && text.trim() !== '') return `<p>${text}</p>\n`;
  // And of paragraphs alone (rendered paragraph blocks, as a generated excerpt renders them): each on a
  // line of its own. One that holds only white space is left to wpautop, which removes it (and white
  // space between paragraphs other than line breaks, which can leave a line break of its own).
  if (PARAGRAPHS.test(text)) {
    let out = '';
    for (const m of text.matchAll(PARAGRAPH)) {
      if ((m[1] as string).trim() === '') return wordpressAutop(text, br);
      out += `${m[0]}\n`;
    }
    return out;
  }
  return wordpressAutop(text.replace(/(<hr\s*?\/?>)/g, '$1\n\n'), br);
}
