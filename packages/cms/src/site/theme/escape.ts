/** Escaping for the theme's HTML: every value that did not come out of the content renderer goes through these. */
import { specialChars } from '../../content/render/kses.ts';

export { escapeUrl as escUrl } from '../../oembed/html.ts';

/**
 * esc_html(): `& < > " '` escaped, but an entity already there is kept, as WordPress does: names of terms
 * and users are stored escaped ("A &amp; B") and must not show their entities to visitors.
 */
export function escHtml(text: string): string {
  return specialChars(text, true);
}

/** esc_attr(): the same rules as element text. */
export const escAttr = escHtml;

/** Text for XML element content and attributes. */
export function escXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch] ?? ch,
  );
}

/** A CDATA section holding any text (a `]]>` inside is split across two sections). */
export function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/** Removes tags from rendered HTML for places that want text only (titles in `<title>`, feeds). */
export function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '');
}
