import { describe, expect, it } from 'vitest';
import { BlockRegistry, parseBlocks } from './blocks.ts';

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
