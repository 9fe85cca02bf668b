/**
 * Paragraphs from line breaks (wpautop), through @wordpress/autop, with the one step the JavaScript port
 * lacks: WordPress adds a paragraph break after a bare `<hr>`, so the text that follows gets its own
 * paragraph.
 */
import { autop as wordpressAutop } from '@wordpress/autop';
import { phpTrim } from './html.ts';

/** Text with no tag and no line break: one paragraph of it, whatever wpautop's other rules say. */
const ONE_PARAGRAPH = /^[^<\r\n]+$/;

/** wpautop(). */
export function autop(text: string, br = true): string {
  if (phpTrim(text) === '') return '';
  // What wpautop makes of a single line of plain text (a generated excerpt, most titles of paragraphs),
  // without its two dozen passes over it; text that is only white space is left to them.
  if (ONE_PARAGRAPH.test(text) && text.trim() !== '') return `<p>${text}</p>\n`;
  return wordpressAutop(text.replace(/(<hr\s*?\/?>)/g, '$1\n\n'), br);
}
