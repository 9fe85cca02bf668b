import { describe, expect, it } from 'vitest';
import { findDiscoveryLink } from './discovery.ts';
import { dataToHtml, filterUntrustedEmbed, keepAllowedHtml, stripNewlines } from './embed-html.ts';
import { parseOEmbedXml, toOEmbedXml } from './xml.ts';

describe('dataToHtml', () => {
  it('links a photo, passes video/rich html, links a link by its title', () => {
    expect(
      dataToHtml(
        { type: 'photo', url: 'https://i.test/p.jpg', width: 640, height: 480, title: 'A "cat"' },
        'https://p.test/1',
      ),
    ).toBe(
      '<a href="https://p.test/1"><img src="https://i.test/p.jpg" alt="A &quot;cat&quot;" width="640" height="480" /></a>',
    );
    expect(dataToHtml({ type: 'video', html: '<iframe src="x">\n</iframe>' }, 'u')).toBe('<iframe src="x"></iframe>');
    expect(dataToHtml({ type: 'link', title: 'T & U' }, 'https://p.test/')).toBe(
      '<a href="https://p.test/">T &amp; U</a>',
    );
    expect(dataToHtml({ type: 'photo', url: 'x' }, 'u')).toBeUndefined();
    expect(dataToHtml({ type: 'unknown' }, 'u')).toBeUndefined();
  });

  it('keeps newlines inside pre only', () => {
    expect(stripNewlines('a\nb<pre>c\nd</pre>e\n')).toBe('ab<pre>c\nd</pre>e');
  });
});

describe('keepAllowedHtml and filterUntrustedEmbed', () => {
  it('drops scripts, event handlers and javascript URLs', () => {
    const dirty =
      '<script>alert(1)</script><a href="javascript:alert(1)" onclick="x()">x</a><iframe src="https://e.test/" onload="y()"></iframe><img src=x onerror=z()>';
    expect(keepAllowedHtml(dirty, { a: ['href'], iframe: ['src'] })).toBe(
      '<a>x</a><iframe src="https://e.test/"></iframe>',
    );
  });

  it('sandboxes the iframe of a discovered provider and ties it to its blockquote', () => {
    const html = filterUntrustedEmbed(
      '<blockquote><a href="https://blog.test/p/">Post</a></blockquote><iframe src="https://blog.test/p/embed/" width="600" height="338"></iframe><script>evil()</script>',
      'Post',
    );
    expect(html).toMatch(
      /^<blockquote class="cms-embedded-content" data-secret="([a-zA-Z0-9]{10})"><a href="https:\/\/blog.test\/p\/">Post<\/a><\/blockquote>/,
    );
    expect(html).toContain('sandbox="allow-scripts" security="restricted"');
    expect(html).toMatch(/src="https:\/\/blog.test\/p\/embed\/#\?secret=[a-zA-Z0-9]{10}"/);
    expect(html).toContain('title="Post"');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('evil');
  });

  it('refuses discovered HTML without an iframe', () => {
    expect(filterUntrustedEmbed('<div onclick="x">hi</div>')).toBeUndefined();
  });
});

describe('findDiscoveryLink', () => {
  it('prefers the JSON link in the head and decodes entities', () => {
    const page = `<html><head>
      <link rel="alternate" type="text/xml+oembed" href="https://p.test/oembed?format=xml&amp;url=a" />
      <link rel="alternate" type="application/json+oembed" href="https://p.test/oembed?url=a&amp;x=1">
      </head><body><link type="application/json+oembed" href="https://evil.test/"></body></html>`;
    expect(findDiscoveryLink(page)).toEqual({ href: 'https://p.test/oembed?url=a&x=1', format: 'json' });
  });

  it('falls back to XML and ignores pages without links', () => {
    expect(findDiscoveryLink('<head><link type="text/xml+oembed" href="/o.xml"></head>')).toEqual({
      href: '/o.xml',
      format: 'xml',
    });
    expect(findDiscoveryLink('<head><title>x</title></head>')).toBeUndefined();
  });
});

describe('oEmbed XML', () => {
  it('writes the oembed document like _oembed_create_xml', () => {
    expect(toOEmbedXml({ version: '1.0', title: 'A & B <c>', width: 600, nested: { a: 1 } })).toBe(
      '<?xml version="1.0"?>\n<oembed><version>1.0</version><title>A &amp; B &lt;c&gt;</title><width>600</width><nested><a>1</a></nested></oembed>\n',
    );
  });

  it('reads flat provider XML and refuses DOCTYPEs', () => {
    expect(
      parseOEmbedXml('<?xml version="1.0"?><oembed><type>rich</type><html>&lt;b&gt;x&lt;/b&gt;</html></oembed>'),
    ).toEqual({
      type: 'rich',
      html: '<b>x</b>',
    });
    expect(
      parseOEmbedXml('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><oembed><t>&e;</t></oembed>'),
    ).toBeUndefined();
  });
});
