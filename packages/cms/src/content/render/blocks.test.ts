import { describe, expect, it, vi } from 'vitest';
import {
  BlockRegistry,
  type BlockRenderState,
  MAX_REPEATED_BLOCK_TEXT,
  type ParsedBlock,
  parseBlocks,
} from './blocks.ts';

describe('BlockRegistry', () => {
  it('renders content without block delimiters as the parser and render_block would: as it is', () => {
    const registry = new BlockRegistry();
    for (const text of ['', 'plain', '\n<p>Benchmark post body.</p>\n', '<div class="x">a</div>\n\n<p>b &amp; c</p>']) {
      const state = { containerCounter: 0 };
      const parsed = parseBlocks(text)
        .map((block) => registry.renderBlock(block, state))
        .join('');
      expect(registry.render(text, { containerCounter: 0 })).toBe(parsed);
      expect(registry.renderForExcerpt(text, { containerCounter: 0 })).toBe(parsed);
      expect(parsed).toBe(text);
    }
  });

  it('still renders delimiters written with other white space', () => {
    const registry = new BlockRegistry();
    const content = '<!--  wp:paragraph -->\n<p>Spaced.</p>\n<!--\n/wp:paragraph -->';
    expect(registry.render(content, { containerCounter: 0 })).toBe('\n<p>Spaced.</p>\n');
  });
});

const open = '<!-- wp:group --><div class="wp-block-group">';
const close = '</div><!-- /wp:group -->';
const flow = '<div class="is-layout-flow wp-block-group">';

describe('deeply nested and wide block trees', () => {
  // Before blocks were rendered with an explicit stack, 10,000 levels overflowed the call stack (a 500).
  it('renders 100,000 nested groups, each with its layout class', () => {
    const depth = 100_000;
    const content = `${open.repeat(depth)}<p>core</p>${close.repeat(depth)}`;
    const html = new BlockRegistry().render(content, { containerCounter: 0 });
    expect(html).toBe(`${flow.repeat(depth)}<p>core</p>${'</div>'.repeat(depth)}`);
  });

  it('gives the excerpt the innermost block of 100,000 nested groups', () => {
    const depth = 100_000;
    const content = `${open.repeat(depth)}<p>core</p>${close.repeat(depth)}`;
    expect(new BlockRegistry().renderForExcerpt(content, { containerCounter: 0 })).toBe(`${flow}<p>core</p></div>`);
  });

  it('numbers styled containers in the order their blocks finish, inner first', () => {
    const gap = '<!-- wp:group {"style":{"spacing":{"blockGap":"1em"}}} --><div class="wp-block-group">';
    const content = `${gap.repeat(3)}x${close.repeat(3)}`;
    const html = new BlockRegistry().render(content, { containerCounter: 0 });
    expect(html).toBe(
      '<div class="is-layout-flow wp-container-3 wp-block-group"><div class="is-layout-flow wp-container-2 wp-block-group">' +
        '<div class="is-layout-flow wp-container-1 wp-block-group">x</div></div></div>',
    );
  });

  it('puts the classes of a group without its own class attribute on the first one inside it', () => {
    const content =
      '<!-- wp:group --><div><!-- wp:group {"layout":{"type":"flex","flexWrap":"nowrap"}} --><div><p class="x">deep</p></div>' +
      '<!-- /wp:group --></div><!-- /wp:group -->';
    // What WordPress 6.1 prints (the inner group takes id 1, the outer one 2 but has no styles to show it).
    expect(new BlockRegistry().render(content, { containerCounter: 0 })).toBe(
      '<div><div><p class="is-layout-flow is-nowrap is-layout-flex wp-container-1 x">deep</p></div></div>',
    );
  });

  it('renders 100,000 sibling groups', () => {
    const content = `${open}a${close}`.repeat(100_000);
    expect(new BlockRegistry().render(content, { containerCounter: 0 })).toBe(`${flow}a</div>`.repeat(100_000));
  });
});

describe('unclosed block openers', () => {
  it('repeat the rest of the content once per open block, as in WordPress, while that stays small', () => {
    const content =
      '<p>lead</p><!-- wp:group --><div class="wp-block-group">a' +
      '<!-- wp:group {"style":{"spacing":{"blockGap":"1em"}}} --><div class="wp-block-group">b';
    // WordPress's parser (and this one) makes each open block a top-level block holding the rest of the content.
    expect(new BlockRegistry().render(content, { containerCounter: 0 })).toBe(
      '<div class="wp-block-group">a<div class="is-layout-flow wp-container-1 wp-block-group">b' +
        '<p>lead</p><div class="is-layout-flow wp-block-group">a' +
        '<!-- wp:group {"style":{"spacing":{"blockGap":"1em"}}} --><div class="wp-block-group">b',
    );
  });

  // Before, 2,000 of these made 60 MB of HTML and the excerpt failed past the longest string (a 500).
  it('are closed at the end of the content when the repeated text would pass the bound', () => {
    const depth = 2000;
    const content = `${open}n`.repeat(depth);
    expect(content.length * depth).toBeGreaterThan(MAX_REPEATED_BLOCK_TEXT);
    const registry = new BlockRegistry();
    expect(registry.render(content, { containerCounter: 0 })).toBe(`${flow}n`.repeat(depth));
    expect(registry.renderForExcerpt(content, { containerCounter: 0 })).toBe(`${flow}n`);
  });

  it('are closed at the end whatever their number, and what follows them is kept', () => {
    const depth = 200_000;
    const content = `<p>before</p>${'<!-- wp:group -->'.repeat(depth)}<p>after</p>`;
    expect(new BlockRegistry().render(content, { containerCounter: 0 })).toBe('<p>before</p><p>after</p>');
  });
});

/** The renderer as it was before the explicit stack: recursive, classes spliced into each block's string. */
function reference(registry: BlockRegistry, dynamic: Map<string, (html: string) => string>) {
  const layout = (block: ParsedBlock, html: string, state: BlockRenderState) => {
    // The real layout logic, reached through a block that has no inner content.
    const probe = registry.renderBlock({ ...block, innerBlocks: [], innerContent: ['class="'] }, state);
    return html.replace('class="', probe);
  };
  const render = (block: ParsedBlock, state: BlockRenderState): string => {
    let html = '';
    let index = 0;
    for (const chunk of block.innerContent) {
      if (typeof chunk === 'string') html += chunk;
      else {
        const inner = block.innerBlocks[index++];
        if (inner) html += render(inner, state);
      }
    }
    const fn = block.blockName ? dynamic.get(block.blockName) : undefined;
    if (fn) html = fn(html);
    return block.blockName ? layout(block, html, state) : html;
  };
  return render;
}

describe('the stack-based renderer', () => {
  it('renders random block trees as the recursive renderer did', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const bits = ['class="', 'cl', 'ass="', 'c', 'lass="', 's="', '"', 'x', '<p>', '</p>', '<div ', '>', ''];
    const names = [
      'core/group',
      'core/paragraph',
      'core/columns',
      'core/column',
      'core/buttons',
      'test/dyn',
      'test/echo',
    ];
    const attrs = [
      {},
      { layout: { type: 'constrained', contentSize: '600px' } },
      { style: { spacing: { blockGap: '2px' } } },
      { layout: { type: 'flex', orientation: 'vertical', justifyContent: 'right' } },
    ];
    const tree = (depth: number): ParsedBlock => {
      const innerBlocks: ParsedBlock[] = [];
      const innerContent: Array<string | null> = [];
      const parts = random(5);
      for (let i = 0; i < parts; i++) {
        if (depth > 0 && random(2) === 0) {
          innerBlocks.push(tree(depth - 1));
          innerContent.push(null);
        } else innerContent.push(bits[random(bits.length)] as string);
      }
      const blockName = names[random(names.length)] as string;
      return { blockName, attrs: attrs[random(attrs.length)] ?? {}, innerBlocks, innerHTML: '', innerContent };
    };
    const dynamic = new Map<string, (html: string) => string>([
      ['test/dyn', (html) => `<section class="dyn">${html.length}</section>`],
      ['test/echo', (html) => `[${html}]`],
    ]);
    const registry = new BlockRegistry();
    for (const [name, fn] of dynamic) registry.registerDynamic(name, (_attrs, html) => fn(html));
    const old = reference(new BlockRegistry(), dynamic);
    for (let run = 0; run < 2000; run++) {
      const block = tree(1 + random(6));
      const a = { containerCounter: 0 };
      const b = { containerCounter: 0 };
      expect(registry.renderBlock(block, a)).toBe(old(block, b));
      expect(a.containerCounter).toBe(b.containerCounter);
    }
  });
});

describe('work done for deeply nested dynamic blocks (counted, not timed; bench/nested-blocks.ts times them)', () => {
  const open = '<!-- wp:group --><div class="wp-block-group">';
  const close = '</div><!-- /wp:group -->';
  /** Groups nested `depth` deep, each holding a dynamic block that holds the next group. */
  const nested = (name: string, depth: number) =>
    `${`${open}<!-- wp:${name} -->`.repeat(depth)}x${`<!-- /wp:${name} -->${close}`.repeat(depth)}`;

  const measure = (name: string, keep: boolean, depth: number) => {
    const registry = new BlockRegistry();
    const handed = { calls: 0, chars: 0 };
    registry.registerDynamic(name, (_attrs, inner) => {
      handed.calls += 1;
      handed.chars += inner.length;
      return keep ? `<div class="kept">${inner}</div>` : '<ul class="dropped"></ul>';
    });
    const blocks = parseBlocks(nested(name, depth));
    // Searches for `class="`: what the renderer does to find where layout classes go.
    const indexOf = vi.spyOn(String.prototype, 'indexOf');
    let searches = 0;
    let html = '';
    try {
      for (const block of blocks) html += registry.renderBlock(block, { containerCounter: 0 });
      searches = indexOf.mock.calls.filter(([needle]) => needle === 'class="').length;
    } finally {
      indexOf.mockRestore();
    }
    return { ...handed, searches, html };
  };

  it('searches each piece of HTML once, however deep the dynamic blocks that keep their inner HTML nest', () => {
    const small = measure('test/keep', true, 500);
    const large = measure('test/keep', true, 1000);
    expect(large.html.startsWith('<div class="is-layout-flow wp-block-group"><div class="kept">')).toBe(true);
    // Linear: twice as deep, twice the searches (each piece once, and its seam). Before, every dynamic block's
    // output was searched for all its `class="`, its whole subtree's again: a million searches at depth 1,000.
    expect(large.searches).toBeLessThanOrEqual(2 * small.searches + 10);
    expect(large.searches).toBeLessThan(10 * 1000);
    // What the renderers themselves are handed is quadratic by contract (each gets its inner HTML, its whole
    // subtree, as WordPress's render callbacks get $content): no renderer-independent way around it.
    expect(large.calls).toBe(1000);
    expect(large.chars).toBeGreaterThan(3.9 * small.chars);
  });

  it('hands dynamic blocks that drop their inner HTML a bounded amount each: linear overall', () => {
    const small = measure('test/drop', false, 1000);
    const large = measure('test/drop', false, 2000);
    expect([small.calls, large.calls]).toEqual([1000, 2000]);
    expect(large.chars).toBeLessThanOrEqual(2 * small.chars + 100);
    expect(large.searches).toBeLessThanOrEqual(2 * small.searches + 10);
  });
});
