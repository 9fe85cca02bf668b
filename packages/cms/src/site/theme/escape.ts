/** Escaping for the theme's HTML: every value that did not come out of the content renderer goes through these. */
/** Escapes an attribute value (same rules as element text: `& < > " '`). */
export { escapeHtml as escHtml, escapeHtml as escAttr, escapeUrl as escUrl } from '../../oembed/html.ts';

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
