/**
 * Block markup rendered the way WordPress's do_blocks() renders it: the serialized blocks are parsed with
 * @wordpress/block-serialization-default-parser, each block's saved HTML is reassembled with its inner
 * blocks, block delimiters disappear, and the layout support adds its `is-layout-*` classes to the
 * blocks that have a layout. Dynamic blocks need a registered renderer; without one they render their
 * saved HTML (usually nothing), as an unregistered block does in WordPress.
 */
import { parse } from '@wordpress/block-serialization-default-parser';

/** A parsed block (the parser's shape). */
export interface ParsedBlock {
  blockName: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: block attributes are free-form JSON
  attrs: Record<string, any> | null;
  innerBlocks: ParsedBlock[];
  innerHTML: string;
  innerContent: Array<string | null>;
}

/** State shared by the blocks rendered for one response (WordPress's per-request unique ids). */
export interface BlockRenderState {
  /** The last unique id given (wp_unique_id()'s counter: layout containers and galleries share it). */
  containerCounter: number;
}

/** Renders a dynamic block from its attributes and its rendered inner content. */
export type DynamicBlockRenderer = (
  attributes: Record<string, unknown>,
  innerContent: string,
  block: ParsedBlock,
  state: BlockRenderState,
) => string;

/** parse_blocks(). */
export function parseBlocks(content: string): ParsedBlock[] {
  return parse(content) as ParsedBlock[];
}

/** has_blocks(): whether the content holds block delimiters. */
export function hasBlocks(content: string): boolean {
  return content.includes('<!-- wp:');
}

/** block_version(): 1 for block content, 0 for classic content. */
export function blockVersion(content: string): number {
  return hasBlocks(content) ? 1 : 0;
}

/** has_block(): whether the content holds a block of that name (`more` means `core/more`). */
export function hasBlock(content: string, name: string): boolean {
  const full = name.includes('/') ? name : `core/${name}`;
  const serialized = full.startsWith('core/') ? full.slice(5) : full;
  if (content.includes(`<!-- wp:${serialized} `)) return true;
  return full.startsWith('core/') && content.includes(`<!-- wp:${full} `);
}

// The core blocks that support layout in WordPress 6.1, with their default layout (block.json
// `__experimentalLayout`). Every one of them takes a unique id when it renders, styled or not.
const LAYOUT_BLOCKS: Record<string, Record<string, unknown>> = {
  'core/group': {},
  'core/column': {},
  'core/post-content': {},
  'core/post-template': {},
  'core/query': {},
  'core/buttons': { type: 'flex' },
  'core/columns': { type: 'flex', flexWrap: 'nowrap' },
  'core/comments-pagination': { type: 'flex' },
  'core/gallery': { type: 'flex' },
  'core/navigation': { type: 'flex' },
  'core/query-pagination': { type: 'flex' },
  'core/social-links': { type: 'flex' },
};

// Blocks whose block.json skips serializing the block gap (`__experimentalSkipSerialization`): their gap
// never makes layout styles.
const SKIPS_GAP_SERIALIZATION = new Set(['core/gallery']);

// The theme's layout definitions (`settings.layout.definitions` of theme.json): the class of each type.
const LAYOUT_CLASS: Record<string, string> = {
  default: 'is-layout-flow',
  constrained: 'is-layout-constrained',
  flex: 'is-layout-flex',
};

// The flex values that make a style (others are ignored, as WordPress ignores them).
const FLEX_JUSTIFY = new Set(['left', 'right', 'center']);
const FLEX_JUSTIFY_HORIZONTAL = new Set([...FLEX_JUSTIFY, 'space-between']);
const FLEX_ALIGN = new Set(['top', 'center', 'bottom']);

/** PHP's truthiness (`! empty()`): '', '0', 0, false, null and empty arrays are false. */
function phpTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === '' || value === '0' || value === 0) {
    return false;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** A layout or attribute value WordPress reads as an array: JSON objects only (anything else has no keys). */
function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function slugClass(value: unknown): string {
  return String(value)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

// A gap value holding one of these is dropped (the layout support's check for unsafe CSS).
const UNSAFE_GAP = /[\\(&=}]|\/\*/;

/** The block gap as the layout support reads it: unsafe values are null, sides of an object kept by name. */
function safeGap(gap: unknown): unknown {
  const unsafe = (value: unknown) => phpTruthy(value) && typeof value !== 'object' && UNSAFE_GAP.test(String(value));
  if (gap !== null && typeof gap === 'object') {
    const out: Record<string, unknown> = {};
    for (const [side, value] of Object.entries(gap)) out[side] = unsafe(value) ? null : value;
    return out;
  }
  return unsafe(gap) ? null : gap;
}

/**
 * Whether wp_get_layout_style() makes any CSS for the layout with the theme's settings (block gap supported):
 * only then does the block carry its `wp-container-N` class.
 */
function hasLayoutStyles(layout: Record<string, unknown>, gap: unknown, skipGap: boolean): boolean {
  const type = layout.type ?? 'default';
  // The flow and constrained layouts use the gap's top side.
  const verticalGap = gap !== null && typeof gap === 'object' ? ((gap as Record<string, unknown>).top ?? null) : gap;
  const gapStyles = verticalGap !== undefined && verticalGap !== null && !skipGap;
  if (type === 'default') return gapStyles;
  if (type === 'constrained') {
    return (
      phpTruthy(layout.contentSize) ||
      phpTruthy(layout.wideSize) ||
      layout.justifyContent === 'left' ||
      layout.justifyContent === 'right' ||
      gapStyles
    );
  }
  if (type === 'flex') {
    const orientation = layout.orientation ?? 'horizontal';
    if (orientation !== 'horizontal') return true; // flex-direction: column, always
    if (phpTruthy(layout.flexWrap) && layout.flexWrap === 'nowrap') return true;
    if (gap !== undefined && gap !== null && !skipGap) return true;
    const justify = layout.justifyContent;
    if (phpTruthy(justify) && FLEX_JUSTIFY_HORIZONTAL.has(String(justify))) return true;
    return phpTruthy(layout.verticalAlignment) && FLEX_ALIGN.has(String(layout.verticalAlignment));
  }
  return false;
}

/**
 * wp_render_layout_support_flag() with the theme's settings (twentytwentythree's: block gap supported, root
 * padding aware alignments on): the layout classes of a block that supports layout (undefined for other blocks).
 * Every such block takes the next unique id, as wp_unique_id() is called before WordPress knows whether the
 * block has styles of its own; only a styled one shows it as `wp-container-N`. The classes go after the first
 * `class="` of the block's HTML; the caller puts them there.
 */
function layoutClasses(block: ParsedBlock, state: BlockRenderState): string | undefined {
  const name = block.blockName ?? '';
  const defaults = LAYOUT_BLOCKS[name];
  if (!defaults) return undefined;
  const attrs = block.attrs ?? {};
  const own = asRecord(attrs.layout);
  const layout: Record<string, unknown> = { ...(attrs.layout !== undefined && attrs.layout !== null ? own : defaults) };
  const id = ++state.containerCounter;
  if (phpTruthy(layout.inherit) || phpTruthy(layout.contentSize)) layout.type = 'constrained';
  const classes: string[] = [];
  if (layout.type === 'constrained') classes.push('has-global-padding');
  if (phpTruthy(own.orientation)) classes.push(`is-${slugClass(own.orientation)}`);
  if (phpTruthy(own.justifyContent)) classes.push(`is-content-justification-${slugClass(own.justifyContent)}`);
  if (own.flexWrap === 'nowrap') classes.push('is-nowrap');
  // A type the theme does not define (`grid` in 6.1) gets no layout class at all.
  const typeName = layout.type === undefined || layout.type === null ? 'default' : String(layout.type);
  if (Object.hasOwn(LAYOUT_CLASS, typeName)) classes.push(LAYOUT_CLASS[typeName] as string);
  const gap = safeGap(asRecord(asRecord(attrs.style).spacing).blockGap);
  if (hasLayoutStyles(layout, gap, SKIPS_GAP_SERIALIZATION.has(name))) classes.push(`wp-container-${id}`);
  return classes.join(' ');
}

const CLASS_ATTRIBUTE = 'class="';

/** Where a block's output starts in a {@link BlockOutput}. */
interface OutputMark {
  piece: number;
  at: number;
  match: number;
  insert: number;
  tail: string;
}

/**
 * The HTML of blocks being rendered, kept as the pieces of saved HTML in order plus the layout classes to insert
 * into them. Each block's layout classes go after the first `class="` of its own output, inner blocks included;
 * splicing them into a string at every level copied the whole subtree once per level (quadratic in the
 * nesting depth). Here every `class="` of the saved HTML is found once, as the pieces arrive, and a block's
 * first one is a look-up. Inserted classes never contain `class="` nor make one with their neighbours, so the
 * matches found in the saved HTML are the matches of the final HTML.
 */
class BlockOutput {
  readonly #pieces: string[] = [];
  /** Length of the saved HTML so far. */
  #length = 0;
  /** Where each `class="` of the saved HTML starts, in order. */
  readonly #matches: number[] = [];
  /** The last characters of the saved HTML, to find a `class="` spread over two pieces. */
  #tail = '';
  /** Classes to insert at a position of the saved HTML, in the order the blocks finished (inner first). */
  readonly #inserts: Array<{ at: number; text: string }> = [];

  mark(): OutputMark {
    return {
      piece: this.#pieces.length,
      at: this.#length,
      match: this.#matches.length,
      insert: this.#inserts.length,
      tail: this.#tail,
    };
  }

  append(piece: string): void {
    if (piece === '') return;
    const keep = CLASS_ATTRIBUTE.length - 1;
    const base = this.#length;
    // A match starting in the tail and ending in this piece.
    const tail = this.#tail;
    const seam = tail + piece.slice(0, keep);
    const across = seam.indexOf(CLASS_ATTRIBUTE);
    if (across !== -1 && across < tail.length) this.#matches.push(base - tail.length + across);
    // Only a piece's first match can be a block's first: every mark lies between pieces, so the first match after
    // a mark is a seam match or the first match of a piece. (Finding them all made each dynamic block that keeps
    // its inner HTML scan its whole subtree once more than needed.)
    const first = piece.indexOf(CLASS_ATTRIBUTE);
    if (first !== -1) this.#matches.push(base + first);
    this.#pieces.push(piece);
    this.#length += piece.length;
    this.#tail = piece.length >= keep ? piece.slice(-keep) : (tail + piece).slice(-keep);
  }

  /** Puts `classes` after the first `class="` written since `mark`, if there is one. */
  addClasses(mark: OutputMark, classes: string): void {
    const matches = this.#matches;
    let i = mark.match;
    // At most one match can start before the mark and end after it.
    if (i < matches.length && (matches[i] as number) < mark.at) i += 1;
    if (i < matches.length)
      this.#inserts.push({ at: (matches[i] as number) + CLASS_ATTRIBUTE.length, text: `${classes} ` });
  }

  /** The HTML written since `mark`, with its classes inserted. */
  html(mark: OutputMark): string {
    const inserts = this.#inserts
      .slice(mark.insert)
      .map((insert, order) => ({ ...insert, order }))
      // At one position, a later (outer) block's classes come first, as if each had been inserted in turn.
      .sort((a, b) => a.at - b.at || b.order - a.order);
    const parts: string[] = [];
    let next = 0;
    let at = mark.at;
    for (let p = mark.piece; p < this.#pieces.length; p++) {
      const piece = this.#pieces[p] as string;
      const end = at + piece.length;
      let from = 0;
      for (; next < inserts.length && (inserts[next]?.at as number) <= end; next++) {
        const insert = inserts[next] as { at: number; text: string };
        parts.push(piece.slice(from, insert.at - at), insert.text);
        from = insert.at - at;
      }
      parts.push(from === 0 ? piece : piece.slice(from));
      at = end;
    }
    return parts.join('');
  }

  /** The HTML written since `mark`, removed from the output. */
  take(mark: OutputMark): string {
    const html = this.html(mark);
    this.#pieces.length = mark.piece;
    this.#length = mark.at;
    this.#matches.length = mark.match;
    this.#inserts.length = mark.insert;
    this.#tail = mark.tail;
    return html;
  }
}

/** A block being rendered: the next of its inner content chunks and inner blocks, and where its output starts. */
interface RenderFrame {
  block: ParsedBlock;
  chunk: number;
  child: number;
  mark: OutputMark;
}

/**
 * How much text the parsed blocks may repeat from the content before the unclosed blocks are closed at its
 * end instead (see {@link BlockRegistry.parse}).
 */
export const MAX_REPEATED_BLOCK_TEXT = 1024 * 1024;

// A closer the parser accepts for any open block (it does not compare names).
const ANY_CLOSER = '<!-- /wp:x -->';

/** The length of the saved HTML of the blocks (at least `limit` when it reaches it). */
function savedTextLength(blocks: ParsedBlock[], limit: number): number {
  let total = 0;
  const stack: ParsedBlock[] = [...blocks];
  for (let block = stack.pop(); block; block = stack.pop()) {
    for (const chunk of block.innerContent) if (chunk) total += chunk.length;
    if (total >= limit) return total;
    for (const inner of block.innerBlocks) stack.push(inner);
  }
  return total;
}

/** The block renderers of a site: dynamic blocks by name. */
export class BlockRegistry {
  readonly #dynamic = new Map<string, DynamicBlockRenderer>();

  /** register_block_type() with a render_callback. */
  registerDynamic(name: string, renderer: DynamicBlockRenderer): void {
    this.#dynamic.set(name, renderer);
  }

  /**
   * parse_blocks() with a bound. When several blocks are still open at the end of the content, the parser (as
   * WordPress's) makes each one a top-level block holding the whole rest of the content, delimiters included:
   * n unclosed openers repeat the text n times over, 34 MB from 34 KB of `<!-- wp:group -->` (WordPress
   * itself runs out of memory). Up to {@link MAX_REPEATED_BLOCK_TEXT} of repeated text renders as WordPress
   * renders it; past that, the open blocks are closed at the end of the content and nest.
   */
  parse(content: string): ParsedBlock[] {
    const blocks = parseBlocks(content);
    const limit = content.length + MAX_REPEATED_BLOCK_TEXT;
    if (savedTextLength(blocks, limit + 1) <= limit) return blocks;
    // Enough closers for every opener (each starts with `<!--`); the parser keeps those left over as one
    // freeform block at the end, which is dropped.
    const closers = ANY_CLOSER.repeat(content.split('<!--').length - 1);
    const closed = parseBlocks(content + closers);
    const last = closed[closed.length - 1];
    if (last && last.blockName === null && closers.endsWith(last.innerHTML)) closed.pop();
    return closed;
  }

  /** render_block(): one parsed block to HTML. */
  renderBlock(block: ParsedBlock, state: BlockRenderState): string {
    return this.#renderAll([block], state);
  }

  /**
   * render_block() of each block, concatenated. The tree is walked with an explicit stack, so no nesting depth
   * overflows the call stack, and in time linear in the saved HTML (dynamic blocks aside: each gets its
   * inner HTML as one string).
   */
  #renderAll(blocks: ParsedBlock[], state: BlockRenderState): string {
    const out = new BlockOutput();
    const start = out.mark();
    const stack: RenderFrame[] = [];
    for (const top of blocks) {
      stack.push({ block: top, chunk: 0, child: 0, mark: out.mark() });
      while (stack.length > 0) {
        const frame = stack[stack.length - 1] as RenderFrame;
        const { block } = frame;
        if (frame.chunk < block.innerContent.length) {
          const chunk = block.innerContent[frame.chunk++];
          if (typeof chunk === 'string') out.append(chunk);
          else {
            const inner = block.innerBlocks[frame.child++];
            if (inner) stack.push({ block: inner, chunk: 0, child: 0, mark: out.mark() });
          }
          continue;
        }
        stack.pop();
        if (!block.blockName) continue;
        const dynamic = this.#dynamic.get(block.blockName);
        if (dynamic) out.append(dynamic(block.attrs ?? {}, out.take(frame.mark), block, state));
        // The gallery's render callback marks it with a unique id of its own (for its gap style), before the
        // layout support runs.
        else if (block.blockName === 'core/gallery') {
          out.addClasses(frame.mark, `wp-block-gallery-${++state.containerCounter}`);
        }
        const classes = layoutClasses(block, state);
        if (classes !== undefined) out.addClasses(frame.mark, classes);
      }
    }
    return out.html(start);
  }

  /** do_blocks(): every block of the content rendered, delimiters removed. */
  render(content: string, state: BlockRenderState): string {
    // Without an HTML comment there is no block delimiter: one freeform block, rendered as it is.
    if (!content.includes('<!--')) return content;
    return this.#renderAll(this.parse(content), state);
  }

  /** excerpt_remove_blocks(): only the blocks that make sense in an excerpt, rendered. */
  renderForExcerpt(content: string, state: BlockRenderState): string {
    if (!content.includes('<!--')) return content;
    const kept: ParsedBlock[] = [];
    for (const block of this.parse(content)) {
      if (!EXCERPT_BLOCKS.has(block.blockName)) continue;
      if (block.innerBlocks.length > 0) {
        if (EXCERPT_WRAPPERS.has(block.blockName)) {
          excerptInnerBlocks(block, kept);
          continue;
        }
        const nested = block.innerBlocks.some((b) => !EXCERPT_INNER.has(b.blockName) || b.innerBlocks.length > 0);
        if (nested) continue;
      }
      kept.push(block);
    }
    return this.#renderAll(kept, state);
  }
}

/** _excerpt_render_inner_blocks(): the excerpt blocks inside a wrapper, wrappers opened, in order. */
function excerptInnerBlocks(wrapper: ParsedBlock, kept: ParsedBlock[]): void {
  const stack = [{ blocks: wrapper.innerBlocks, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { blocks: ParsedBlock[]; next: number };
    const inner = top.blocks[top.next++];
    if (!inner) {
      stack.pop();
      continue;
    }
    if (!EXCERPT_BLOCKS.has(inner.blockName)) continue;
    if (inner.innerBlocks.length === 0) kept.push(inner);
    else stack.push({ blocks: inner.innerBlocks, next: 0 });
  }
}

const EXCERPT_INNER = new Set<string | null>([
  null,
  'core/freeform',
  'core/heading',
  'core/html',
  'core/list',
  'core/media-text',
  'core/paragraph',
  'core/preformatted',
  'core/pullquote',
  'core/quote',
  'core/table',
  'core/verse',
]);
const EXCERPT_WRAPPERS = new Set<string | null>(['core/columns', 'core/column', 'core/group']);
const EXCERPT_BLOCKS = new Set<string | null>([...EXCERPT_INNER, ...EXCERPT_WRAPPERS]);
