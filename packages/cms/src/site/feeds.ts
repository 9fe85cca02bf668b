import { decodeHtmlEntities } from '../oembed/html.ts';
import { cdata, escXml, stripTags } from './theme/escape.ts';

/** One feed item. Dates are RFC 2822 strings (`D, d M Y H:i:s +0000`). */
export interface FeedItem {
  titleHtml: string;
  link: string;
  guid: string;
  creator: string;
  pubDate: string;
  categories: string[];
  /** The excerpt (RSS `description`), HTML. */
  descriptionHtml: string;
  /** The full content, HTML; omitted for password-protected posts. */
  contentHtml?: string;
  commentCount: number;
}

/** The channel of a feed. */
export interface FeedChannel {
  title: string;
  /** The feed's own URL (`atom:link rel="self"`). */
  selfUrl: string;
  /** The page the feed is about. */
  link: string;
  description: string;
  lastBuildDate: string;
  language: string;
}

const NAMED_TO_NUMERIC: Readonly<Record<string, string>> = {
  nbsp: '&#160;',
  hellip: '&#8230;',
  ndash: '&#8211;',
  mdash: '&#8212;',
  lsquo: '&#8216;',
  rsquo: '&#8217;',
  ldquo: '&#8220;',
  rdquo: '&#8221;',
  laquo: '&#171;',
  raquo: '&#187;',
  copy: '&#169;',
  reg: '&#174;',
  trade: '&#8482;',
  middot: '&#183;',
  bull: '&#8226;',
  euro: '&#8364;',
  pound: '&#163;',
  times: '&#215;',
};

/** `ent2ncr()`: named HTML entities (invalid in XML) as numeric references. */
function entitiesToNumeric(text: string): string {
  return text.replace(/&([a-zA-Z][a-zA-Z0-9]*);/g, (whole, name: string) =>
    ['amp', 'lt', 'gt', 'quot', 'apos'].includes(name) ? whole : (NAMED_TO_NUMERIC[name] ?? '&#65533;'),
  );
}

/** `the_title_rss()`: the rendered title without tags, entities XML-safe. */
function rssTitle(html: string): string {
  return entitiesToNumeric(stripTags(html))
    .replace(/&(?!(?:#\d+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);)/g, '&amp;')
    .replace(/</g, '&lt;');
}

/** An RSS 2.0 feed shaped like WordPress's feed-rss2.php. */
export function rss2Feed(channel: FeedChannel, items: readonly FeedItem[]): string {
  const body = items
    .map(
      (item) => `	<item>
		<title>${rssTitle(item.titleHtml)}</title>
		<link>${escXml(item.link)}</link>
		<comments>${escXml(item.link)}#respond</comments>
		<dc:creator>${cdata(item.creator)}</dc:creator>
		<pubDate>${item.pubDate}</pubDate>
${item.categories.map((c) => `		<category>${cdata(decodeHtmlEntities(c))}</category>\n`).join('')}		<guid isPermaLink="false">${escXml(item.guid)}</guid>
		<description>${cdata(item.descriptionHtml)}</description>
${item.contentHtml !== undefined ? `		<content:encoded>${cdata(item.contentHtml)}</content:encoded>\n` : ''}		<wfw:commentRss>${escXml(item.link.replace(/\/?$/, '/'))}feed/</wfw:commentRss>
		<slash:comments>${item.commentCount}</slash:comments>
	</item>
`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"
	xmlns:content="http://purl.org/rss/1.0/modules/content/"
	xmlns:wfw="http://wellformedweb.org/CommentAPI/"
	xmlns:dc="http://purl.org/dc/elements/1.1/"
	xmlns:atom="http://www.w3.org/2005/Atom"
	xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"
	xmlns:slash="http://purl.org/rss/1.0/modules/slash/"
	>

<channel>
	<title>${rssTitle(escXml(decodeHtmlEntities(channel.title)))}</title>
	<atom:link href="${escXml(channel.selfUrl)}" rel="self" type="application/rss+xml" />
	<link>${escXml(channel.link)}</link>
	<description>${escXml(decodeHtmlEntities(channel.description))}</description>
	<lastBuildDate>${channel.lastBuildDate}</lastBuildDate>
	<language>${escXml(channel.language)}</language>
	<sy:updatePeriod>
	hourly	</sy:updatePeriod>
	<sy:updateFrequency>
	1	</sy:updateFrequency>
	<generator>cms</generator>
${body}</channel>
</rss>
`;
}
