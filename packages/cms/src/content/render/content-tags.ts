/**
 * wp_filter_content_tags() as it applies to content served by the REST API: images and iframes that have
 * `src`, `width` and `height` get `loading="lazy"`; images with a double-quoted `src` get
 * `decoding="async"`. (Outside the main loop, which a REST request never is, WordPress lazy-loads every
 * such element.) Sizes and srcset for `wp-image-{id}` images need the attachment's metadata and are left
 * to the media layer.
 */

/** wp_filter_content_tags(). */
export function filterContentTags(content: string): string {
  if (!content.includes('<img') && !content.includes('<iframe')) return content;
  const matches = [...content.matchAll(/<(img|iframe)\s[^>]+>/g)];
  if (matches.length === 0) return content;
  const seen = new Set<string>();
  let out = content;
  for (const match of matches) {
    const tag = match[0];
    if (seen.has(tag)) continue;
    seen.add(tag);
    let filtered = tag;
    if (match[1] === 'img') {
      if (!filtered.includes(' loading=') && hasDimensions(filtered)) {
        filtered = filtered.replace('<img', '<img loading="lazy"');
      }
      if (!filtered.includes(' decoding=') && filtered.includes(' src="')) {
        filtered = filtered.replace('<img ', '<img decoding="async" ');
      }
    } else if (!filtered.includes(' loading=') && !filtered.includes(' data-secret="') && hasDimensions(filtered)) {
      filtered = filtered.replace('<iframe', '<iframe loading="lazy"');
    }
    if (filtered !== tag) out = out.replaceAll(tag, filtered);
  }
  return out;
}

function hasDimensions(tag: string): boolean {
  return tag.includes(' src="') && tag.includes(' width="') && tag.includes(' height="');
}
