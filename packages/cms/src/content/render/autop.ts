/**
 * Paragraphs from line breaks (wpautop), through @wordpress/autop, with the one step the JavaScript port
 * lacks: WordPress adds a paragraph break after a bare `<hr>`, so the text that follows gets its own
 * paragraph.
 */
import { autop as wordpressAutop } from '@wordpress/autop';
import { phpTrim } from './html.ts';

/** wpautop(). */
export function autop(text: string, br = true): string {
  if (phpTrim(text) === '') return '';
  return wordpressAutop(text.replace(/(<hr\s*?\/?>)/g, '$1\n\n'), br);
}
