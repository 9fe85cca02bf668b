import { describe, expect, it } from 'vitest';
import { fixture, fixturesSkip } from '../../../test/helpers/oracle-fixtures.ts';
import { BlockRegistry } from './blocks.ts';
import { ContentRenderer } from './content-renderer.ts';
import { defaultShortcodes } from './shortcodes.ts';

function renderer(): ContentRenderer {
  return new ContentRenderer({
    blocks: new BlockRegistry(),
    shortcodes: defaultShortcodes(),
    useSmilies: true,
    smiliesBaseUrl: 'http://example.test/wp-includes/images/smilies/',
  });
}

describe('ContentRenderer', () => {
  it('renders block content without delimiters and keeps the more tag', () => {
    const out = renderer().content(
      '<!-- wp:paragraph -->\n<p>It\'s "here"</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->',
    );
    expect(out).toBe('\n<p>It&#8217;s &#8220;here&#8221;</p>\n\n\n\n<!--more-->\n');
  });

  it('wraps classic content in paragraphs', () => {
    expect(renderer().content('One\ntwo\n\nThree')).toBe('<p>One<br />\ntwo</p>\n<p>Three</p>\n');
  });

  it('generates an excerpt from the text before the more tag', () => {
    const r = renderer();
    const content =
      '<!-- wp:paragraph -->\n<p>Before the cut.</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->\n\n<!-- wp:paragraph -->\n<p>After.</p>\n<!-- /wp:paragraph -->';
    expect(r.excerpt({ content, excerpt: '' })).toBe('<p>Before the cut.</p>\n');
  });

  it('cuts a generated excerpt at the requested number of words', () => {
    const r = renderer();
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
    expect(r.excerpt({ content: words, excerpt: '' })).toBe(
      `<p>${Array.from({ length: 55 }, (_, i) => `w${i}`).join(' ')} [&hellip;]</p>\n`,
    );
    expect(r.excerpt({ content: words, excerpt: '' }, 3)).toBe('<p>w0 w1 w2 [&hellip;]</p>\n');
  });

  it('leaves dynamic blocks without a renderer empty and uses a registered one', () => {
    const blocks = new BlockRegistry();
    const r = new ContentRenderer({ blocks, shortcodes: defaultShortcodes(), useSmilies: false, smiliesBaseUrl: '' });
    expect(r.content('<!-- wp:latest-posts /-->')).toBe('');
    blocks.registerDynamic('core/latest-posts', (attrs) => `<ul data-n="${String(attrs.postsToShow)}"></ul>`);
    expect(r.content('<!-- wp:latest-posts {"postsToShow":3} /-->')).toBe('<ul data-n="3"></ul>');
  });

  it('adds the layout classes of layout blocks', () => {
    const out = renderer().content(
      '<!-- wp:group -->\n<div class="wp-block-group"><!-- wp:paragraph -->\n<p>x</p>\n<!-- /wp:paragraph --></div>\n<!-- /wp:group -->',
    );
    expect(out).toBe('\n<div class="is-layout-flow wp-block-group">\n<p>x</p>\n</div>\n');
  });

  it('prefixes private titles and texturizes titles', () => {
    const r = renderer();
    expect(r.title({ title: 'Tom\'s "A" & B', status: 'publish' })).toBe('Tom&#8217;s &#8220;A&#8221; &#038; B');
    expect(r.title({ title: 'Memo', status: 'private' })).toBe('Private: Memo');
  });

  describe.skipIf(fixturesSkip)('renders the oracle posts as WordPress did', () => {
    it('the anchor post: content, title and hand-written excerpt', () => {
      const post = fixture('post-edit-context');
      const r = renderer();
      expect(r.content(post.content.raw)).toBe(post.content.rendered);
      expect(r.title({ title: post.title.raw, status: post.status })).toBe(post.title.rendered);
      expect(r.excerpt({ content: post.content.raw, excerpt: post.excerpt.raw })).toBe(post.excerpt.rendered);
    });

    it('the non-public posts: contents, generated excerpts and private titles', () => {
      const r = renderer();
      for (const post of fixture('posts-list-status-any-edit')) {
        expect(r.content(post.content.raw), `post ${post.id}`).toBe(post.content.rendered);
        expect(r.excerpt({ content: post.content.raw, excerpt: post.excerpt.raw }), `post ${post.id}`).toBe(
          post.excerpt.rendered,
        );
        expect(r.title({ title: post.title.raw, status: post.status }), `post ${post.id}`).toBe(post.title.rendered);
      }
    });

    it('a classic post created through the API', () => {
      const post = fixture('post-create');
      const r = renderer();
      expect(r.content(post.content.raw)).toBe(post.content.rendered);
      expect(r.excerpt({ content: post.content.raw, excerpt: post.excerpt.raw })).toBe(post.excerpt.rendered);
    });
  });
});
