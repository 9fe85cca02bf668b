import { randomBytes } from 'node:crypto';
import { decodeHtmlEntities, escapeHtml, escapeUrl } from './html.ts';

/** What the site knows about a post it is asked to embed. */
export interface EmbeddablePost {
  /** Rendered title (HTML, as `get_the_title()` gives it). */
  titleHtml: string;
  permalink: string;
  author?: { name: string; url: string };
  /** The featured image (or the image itself for an image attachment), sizes available. */
  thumbnail?: Array<{ url: string; width: number; height: number }>;
  /** A video attachment answers with type `video`. */
  isVideo?: boolean;
}

/** The site answering oEmbed requests. */
export interface EmbeddingSite {
  name: string;
  homeUrl: string;
}

/**
 * `get_oembed_response_data()` with the `rich` filter: the oEmbed object for one of this site's posts, the
 * width clamped to 200–600 and the height 16:9 of it (at least 200), with the sandboxed iframe HTML.
 */
export function oembedResponseForPost(
  post: EmbeddablePost,
  site: EmbeddingSite,
  maxwidth: number,
): Record<string, unknown> {
  const width = Math.min(Math.max(200, Math.trunc(Math.abs(maxwidth)) || 0), 600);
  const height = Math.max(Math.ceil((width / 16) * 9), 200);
  const data: Record<string, unknown> = {
    version: '1.0',
    provider_name: site.name,
    provider_url: site.homeUrl,
    author_name: post.author?.name ?? site.name,
    author_url: post.author?.url ?? site.homeUrl,
    title: post.titleHtml,
    type: post.isVideo ? 'video' : 'rich',
    width,
    height,
    html: postEmbedHtml(post, site, width, height),
  };
  const thumbnail = bestThumbnail(post.thumbnail ?? [], width);
  if (thumbnail) {
    data.thumbnail_url = thumbnail.url;
    data.thumbnail_width = thumbnail.width;
    data.thumbnail_height = thumbnail.height;
  }
  return data;
}

/** The smallest size at least `width` wide, else the largest (`wp_get_attachment_image_src(id, [w, 99999])`). */
function bestThumbnail(
  sizes: ReadonlyArray<{ url: string; width: number; height: number }>,
  width: number,
): { url: string; width: number; height: number } | undefined {
  const sorted = [...sizes].sort((a, b) => a.width - b.width);
  return sorted.find((s) => s.width >= width) ?? sorted[sorted.length - 1];
}

/** `get_post_embed_url()`: the post's embed view. */
export function postEmbedUrl(permalink: string): string {
  return `${permalink.endsWith('/') ? permalink : `${permalink}/`}embed/`;
}

/** `get_post_embed_html()`: a blockquote fallback and a sandboxed iframe of the embed view, sharing a secret. */
export function postEmbedHtml(post: EmbeddablePost, site: EmbeddingSite, width: number, height: number): string {
  const secret = randomBytes(8)
    .toString('base64url')
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 10)
    .padEnd(10, 'x');
  const src = `${postEmbedUrl(post.permalink)}#?secret=${secret}`;
  const title = `&#8220;${post.titleHtml}&#8221; &#8212; ${escapeHtml(decodeHtmlEntities(site.name))}`;
  return (
    `<blockquote class="cms-embedded-content" data-secret="${secret}"><a href="${escapeUrl(post.permalink)}">${post.titleHtml}</a></blockquote>` +
    `<iframe sandbox="allow-scripts" security="restricted" src="${escapeUrl(src)}" width="${width}" height="${height}" title="${title.replace(/"/g, '&quot;')}" data-secret="${secret}" frameborder="0" marginwidth="0" marginheight="0" scrolling="no" class="cms-embedded-content"></iframe>` +
    `<script>${EMBED_HOST_SCRIPT}</script>`
  );
}

/**
 * Host-page half of the embed handshake (what wp-embed.js does): shows the iframe instead of the
 * blockquote, and applies the height the embedded page reports for the matching secret.
 */
export const EMBED_HOST_SCRIPT =
  '!function(w,d){if(w.cmsEmbedListening)return;w.cmsEmbedListening=1;' +
  'w.addEventListener("message",function(e){var m=e.data;if(!m||!m.secret||!/^[a-zA-Z0-9]+$/.test(m.secret))return;' +
  'var f=d.querySelectorAll("iframe[data-secret=\\""+m.secret+"\\"]"),q=d.querySelectorAll("blockquote[data-secret=\\""+m.secret+"\\"]");' +
  'for(var i=0;i<q.length;i++)q[i].style.display="none";' +
  'for(i=0;i<f.length;i++){f[i].removeAttribute("style");' +
  'if(m.message==="height"){var h=parseInt(m.value,10);if(h>1000)h=1000;else if(h<200)h=200;f[i].height=h}}});' +
  'd.addEventListener("DOMContentLoaded",function(){var f=d.querySelectorAll("iframe.cms-embedded-content");' +
  'for(var i=0;i<f.length;i++)if(!f[i].getAttribute("data-secret")){var s=Math.random().toString(36).slice(2,12);' +
  'f[i].src+="#?secret="+s;f[i].setAttribute("data-secret",s)}})}(window,document);';

/** `wp_oembed_add_discovery_links()`: the two `<link rel="alternate">` tags for a post's page head. */
export function oembedDiscoveryLinks(restRoot: string, permalink: string): string {
  const base = `${restRoot.replace(/\/+$/, '')}/oembed/1.0/embed?url=${encodeURIComponent(permalink)}`;
  return (
    `<link rel="alternate" type="application/json+oembed" href="${escapeHtml(base)}" />\n` +
    `<link rel="alternate" type="text/xml+oembed" href="${escapeHtml(`${base}&format=xml`)}" />\n`
  );
}
