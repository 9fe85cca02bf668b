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

type LayoutType = 'default' | 'constrained' | 'flex';

// The core blocks that support layout, with their default layout (block.json `__experimentalLayout`).
const LAYOUT_BLOCKS: Record<string, Record<string, unknown>> = {
  'core/group': {},
  'core/column': {},
  'core/post-content': {},
  'core/buttons': { type: 'flex' },
  'core/columns': { type: 'flex', flexWrap: 'nowrap' },
  'core/gallery': { type: 'flex' },
  'core/navigation': { type: 'flex' },
  'core/social-links': { type: 'flex' },
};

const LAYOUT_CLASS: Record<LayoutType, string> = {
  default: 'is-layout-flow',
  constrained: 'is-layout-constrained',
  flex: 'is-layout-flex',
};

function slugClass(value: unknown): string {
  return String(value)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

/** wp_render_layout_support_flag(): layout classes on the block's outer element. */
function addLayoutClasses(content: string, block: ParsedBlock, state: BlockRenderState): string {
  const defaults = LAYOUT_BLOCKS[block.blockName ?? ''];
  if (!defaults) return content;
  const attrs = block.attrs ?? {};
  const layout: Record<string, unknown> = { ...(attrs.layout ?? defaults) };
  if (layout.inherit || layout.contentSize) layout.type = 'constrained';
  const type = (['constrained', 'flex'].includes(layout.type as string) ? layout.type : 'default') as LayoutType;
  const classes: string[] = [];
  if (attrs.layout?.orientation) classes.push(`is-${slugClass(attrs.layout.orientation)}`);
  if (attrs.layout?.justifyContent) classes.push(`is-content-justification-${slugClass(attrs.layout.justifyContent)}`);
  if (attrs.layout?.flexWrap === 'nowrap') classes.push('is-nowrap');
  classes.push(LAYOUT_CLASS[type]);
  // A container id is only added when the block generates its own layout styles.
  const gap = attrs.style?.spacing?.blockGap;
  const styled =
    gap !== undefined ||
    (type === 'constrained' &&
      (layout.contentSize || layout.wideSize || ['left', 'right'].includes(layout.justifyContent as string))) ||
    (type === 'flex' &&
      (layout.flexWrap === 'nowrap' ||
        layout.justifyContent ||
        layout.verticalAlignment ||
        layout.orientation === 'vertical'));
  if (styled) classes.push(`wp-container-${++state.containerCounter}`);
  return content.replace('class="', `class="${classes.join(' ')} `);
}

/** The block renderers of a site: dynamic blocks by name. */
export class BlockRegistry {
  readonly #dynamic = new Map<string, DynamicBlockRenderer>();

  /** register_block_type() with a render_callback. */
  registerDynamic(name: string, renderer: DynamicBlockRenderer): void {
    this.#dynamic.set(name, renderer);
  }

  /** render_block(): one parsed block to HTML. */
  renderBlock(block: ParsedBlock, state: BlockRenderState): string {
    let html = '';
    let index = 0;
    for (const chunk of block.innerContent) {
      if (typeof chunk === 'string') html += chunk;
      else {
        const inner = block.innerBlocks[index++];
        if (inner) html += this.renderBlock(inner, state);
      }
    }
    const dynamic = block.blockName ? this.#dynamic.get(block.blockName) : undefined;
    if (dynamic) html = dynamic(block.attrs ?? {}, html, block, state);
    return block.blockName ? addLayoutClasses(html, block, state) : html;
  }

  /** do_blocks(): every block of the content rendered, delimiters removed. */
  render(content: string, state: BlockRenderState): string {
    // Without an HTML comment there is no block delimiter: one freeform block, rendered as it is.
    if (!content.includes('<!--')) return content;
    let out = '';
    for (const block of parseBlocks(content)) out += this.renderBlock(block, state);
    return out;
  }

  /** excerpt_remove_blocks(): only the blocks that make sense in an excerpt, rendered. */
  renderForExcerpt(content: string, state: BlockRenderState): string {
    if (!content.includes('<!--')) return content;
    let out = '';
    for (const block of parseBlocks(content)) {
      if (!EXCERPT_BLOCKS.has(block.blockName)) continue;
      if (block.innerBlocks.length > 0) {
        if (EXCERPT_WRAPPERS.has(block.blockName)) {
          out += this.#renderExcerptInner(block, state);
          continue;
        }
        const nested = block.innerBlocks.some((b) => !EXCERPT_INNER.has(b.blockName) || b.innerBlocks.length > 0);
        if (nested) continue;
      }
      out += this.renderBlock(block, state);
    }
    return out;
  }

  #renderExcerptInner(block: ParsedBlock, state: BlockRenderState): string {
    let out = '';
    for (const inner of block.innerBlocks) {
      if (!EXCERPT_BLOCKS.has(inner.blockName)) continue;
      out += inner.innerBlocks.length === 0 ? this.renderBlock(inner, state) : this.#renderExcerptInner(inner, state);
    }
    return out;
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
