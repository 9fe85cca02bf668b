/**
 * The display filters WordPress runs over a post before the REST API returns it, in WordPress's order:
 *
 * - content (`the_content`): blocks rendered, smart typography, paragraphs for classic content,
 *   shortcodes unwrapped from paragraphs, lazy-loading attributes, shortcodes expanded, smilies;
 * - excerpt (`get_the_excerpt` + `the_excerpt`): the hand-written excerpt, or one generated from the
 *   content before the more tag (55 words and ` [&hellip;]` by default), then typography and paragraphs;
 * - title (`the_title`): `Private: ` for private posts, smart typography, `&` as `&#038;`, trimmed.
 */
import { autop } from './autop.ts';
import { type BlockRegistry, type BlockRenderState, hasBlock, hasBlocks } from './blocks.ts';
import { filterContentTags } from './content-tags.ts';
import { convertChars, forceBalanceTags, phpTrim, stripAllTags } from './html.ts';
import type { ShortcodeRegistry } from './shortcodes.ts';
import { convertSmilies } from './smilies.ts';
import { texturize } from './texturize.ts';

/** What the renderer needs to know about the site. */
export interface ContentRendererOptions {
  blocks: BlockRegistry;
  shortcodes: ShortcodeRegistry;
  /** The `use_smilies` option. */
  useSmilies: boolean;
  /** Where the image smilies live (WordPress: `{site}/wp-includes/images/smilies/`). */
  smiliesBaseUrl: string;
}

/** The fields of a post the display filters look at. */
export interface RenderablePost {
  title: string;
  content: string;
  excerpt: string;
  status: string;
}

/** Default number of words in a generated excerpt (the `excerpt_length` filter's default). */
export const DEFAULT_EXCERPT_LENGTH = 55;
/** What ends a generated excerpt that was cut (the `excerpt_more` filter's default). */
export const EXCERPT_MORE = ' [&hellip;]';

/** wp_trim_words(): the first `count` words of the text without tags, and `more` when it was cut. */
export function trimWords(text: string, count: number, more = '&hellip;'): string {
  const words = stripAllTags(text)
    .split(/[\n\r\t ]+/)
    .filter((w) => w !== '');
  const limit = Math.trunc(count);
  // A negative count means no limit to preg_split(), so WordPress drops just the last word.
  if (limit < 0) return words.slice(0, -1).join(' ') + more;
  if (words.length > limit) return words.slice(0, limit).join(' ') + more;
  return words.join(' ');
}

/** Renders titles, contents and excerpts as WordPress displays them. */
export class ContentRenderer {
  readonly #options: ContentRendererOptions;

  constructor(options: ContentRendererOptions) {
    this.#options = options;
  }

  /** A fresh per-response state (WordPress numbers layout containers per request). */
  newState(): BlockRenderState {
    return { containerCounter: 0 };
  }

  /** apply_filters( 'the_content', $content ). */
  content(raw: string, state: BlockRenderState = this.newState()): string {
    const { blocks, shortcodes } = this.#options;
    const isBlockContent = hasBlocks(raw);
    let text = blocks.render(raw, state);
    text = texturize(text, shortcodes.tags);
    // do_blocks() switches wpautop off for block content.
    if (!isBlockContent) text = autop(text);
    text = shortcodes.unautop(text);
    text = filterContentTags(text);
    text = shortcodes.expand(text);
    if (this.#options.useSmilies) text = convertSmilies(text, this.#options.smiliesBaseUrl);
    return text;
  }

  /** apply_filters( 'the_excerpt', $text ). */
  excerptFilters(text: string): string {
    const { shortcodes } = this.#options;
    let out = texturize(text, shortcodes.tags);
    if (this.#options.useSmilies) out = convertSmilies(out, this.#options.smiliesBaseUrl);
    out = convertChars(out);
    out = autop(out);
    out = shortcodes.unautop(out);
    return filterContentTags(out);
  }

  /**
   * get_the_content( '', false, $post ) as the excerpt generator sees it: the first page of the
   * content, cut at the more tag (the more block's delimiters removed), tags balanced.
   */
  teaser(content: string): string {
    let page = content;
    if (page.includes('<!--nextpage-->')) {
      page = page
        .replaceAll('\n<!--nextpage-->\n', '<!--nextpage-->')
        .replaceAll('\n<!--nextpage-->', '<!--nextpage-->')
        .replaceAll('<!--nextpage-->\n', '<!--nextpage-->')
        .replaceAll('<!-- wp:nextpage -->', '')
        .replaceAll('<!-- /wp:nextpage -->', '');
      if (page.startsWith('<!--nextpage-->')) page = page.slice(15);
      page = page.split('<!--nextpage-->')[0] ?? '';
    }
    const more = /<!--more(.*?)?-->/.exec(page);
    if (!more) return page;
    if (hasBlock(page, 'more')) page = page.replace(/<!-- \/?wp:more(.*?) -->/g, '');
    const at = page.indexOf(more[0]);
    if (at === -1) return page;
    return forceBalanceTags(page.slice(0, at));
  }

  /** wp_trim_excerpt(): an excerpt generated from the content. */
  generateExcerpt(
    content: string,
    excerptLength = DEFAULT_EXCERPT_LENGTH,
    state: BlockRenderState = this.newState(),
  ): string {
    let text = this.teaser(content);
    text = this.#options.shortcodes.strip(text);
    text = this.#options.blocks.renderForExcerpt(text, state);
    text = this.content(text, state);
    text = text.replaceAll(']]>', ']]&gt;');
    return trimWords(text, excerptLength, EXCERPT_MORE);
  }

  /** The excerpt's `rendered` value: the hand-written excerpt or a generated one, through the excerpt filters. */
  excerpt(post: Pick<RenderablePost, 'content' | 'excerpt'>, excerptLength?: number, state?: BlockRenderState): string {
    const text =
      phpTrim(post.excerpt, ' \t\n\r\0\x0B') === ''
        ? this.generateExcerpt(post.content, excerptLength, state)
        : post.excerpt;
    return this.excerptFilters(text);
  }

  /** get_the_title() as the REST API calls it: `Private: ` for private posts, no `Protected: ` prefix. */
  title(post: Pick<RenderablePost, 'title' | 'status'>): string {
    const title = post.status === 'private' ? `Private: ${post.title}` : post.title;
    return phpTrim(convertChars(texturize(title, this.#options.shortcodes.tags)));
  }
}
