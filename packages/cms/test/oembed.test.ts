import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy, OEmbedProxy } from '../src/oembed/index.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
let provider: http.Server;
let providerUrl = '';
let postLink = '';
let postId = 0;

beforeAll(async () => {
  cms = await createSiteTestCms();
  const post = await cms.call({
    method: 'POST',
    url: '/cms-json/cms/v2/posts',
    as: 'admin',
    payload: { title: 'Embed & me', content: '<p>Text</p>', status: 'publish' },
  });
  postLink = post.json().link;
  postId = post.json().id;
  provider = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/page') {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<html><head><link rel="alternate" type="application/json+oembed" href="${providerUrl}/oembed"></head></html>`,
      );
      return;
    }
    if (url.pathname === '/oembed') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: 'video',
          version: '1.0',
          title: 'Loop video',
          html: `<iframe src="https://player.test/v" width="${url.searchParams.get('maxwidth')}"></iframe>`,
        }),
      );
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  provider?.closeAllConnections();
  await new Promise((resolve) => provider?.close(resolve));
  await cms?.close();
});

describe('/oembed/1.0/embed', () => {
  it('answers for a post of this site with rich JSON sized by maxwidth', async () => {
    const res = await cms.call({
      method: 'GET',
      url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(postLink)}&maxwidth=400`,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      version: '1.0',
      provider_name: 'Test Site',
      provider_url: 'http://cms.test/',
      author_name: 'Admin',
      author_url: 'http://cms.test/author/admin/',
      title: 'Embed &#038; me',
      type: 'rich',
      width: 400,
      height: 225,
    });
    expect(Object.keys(body)).toEqual([
      'version',
      'provider_name',
      'provider_url',
      'author_name',
      'author_url',
      'title',
      'type',
      'width',
      'height',
      'html',
    ]);
    expect(body.html).toMatch(
      /^<blockquote class="cms-embedded-content" data-secret="(\w{10})"><a href="http:\/\/cms\.test\/embed-me\/">Embed &#038; me<\/a><\/blockquote><iframe sandbox="allow-scripts" security="restricted" src="http:\/\/cms\.test\/embed-me\/embed\/#\?secret=\1"/,
    );
  });

  it('clamps maxwidth to 200–600 and keeps the height at least 200', async () => {
    const wide = (
      await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(postLink)}&maxwidth=2000`,
      })
    ).json();
    expect([wide.width, wide.height]).toEqual([600, 338]);
    const narrow = (
      await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(postLink)}&maxwidth=50`,
      })
    ).json();
    expect([narrow.width, narrow.height]).toEqual([200, 200]);
    const byId = await cms.call({
      method: 'GET',
      url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(`http://cms.test/?p=${postId}`)}`,
    });
    expect(byId.json().width).toBe(600);
  });

  it('answers XML with format=xml', async () => {
    const res = await cms.call({
      method: 'GET',
      url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(postLink)}&format=xml`,
    });
    expect(res.headers['content-type']).toBe('text/xml; charset=UTF-8');
    expect(res.body).toMatch(
      /^<\?xml version="1\.0"\?>\n<oembed><version>1\.0<\/version><provider_name>Test Site<\/provider_name>/,
    );
    expect(res.body).toContain('<title>Embed &amp;#038; me</title>');
    expect(res.body).toContain('<html>&lt;blockquote');
  });

  it('answers 404 for other URLs and checks its arguments', async () => {
    const other = await cms.call({
      method: 'GET',
      url: '/cms-json/oembed/1.0/embed?url=https%3A%2F%2Fexample.org%2Fhello%2F',
    });
    expect(other.json()).toEqual({ code: 'oembed_invalid_url', message: 'Not Found', data: { status: 404 } });
    const draft = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'admin',
      payload: { title: 'Draft', status: 'draft' },
    });
    const hidden = await cms.call({
      method: 'GET',
      url: `/cms-json/oembed/1.0/embed?url=${encodeURIComponent(draft.json().link)}`,
    });
    expect(hidden.statusCode).toBe(404);
    const missing = await cms.call({ method: 'GET', url: '/cms-json/oembed/1.0/embed' });
    expect(missing.json()).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['url'] } });
  });

  it('is in the index first, as in WordPress', async () => {
    const index = await cms.call({ method: 'GET', url: '/cms-json/' });
    expect(index.json().namespaces[0]).toBe('oembed/1.0');
    const ns = await cms.call({ method: 'GET', url: '/cms-json/oembed/1.0' });
    expect(Object.keys(ns.json().routes)).toEqual(expect.arrayContaining(['/oembed/1.0/embed', '/oembed/1.0/proxy']));
  });
});

describe('/oembed/1.0/proxy', () => {
  it('needs a user who may edit posts', async () => {
    const anonymous = await cms.call({
      method: 'GET',
      url: '/cms-json/oembed/1.0/proxy?url=https%3A%2F%2Fexample.org%2F',
    });
    expect(anonymous.json()).toMatchObject({ code: 'rest_forbidden', data: { status: 401 } });
    const subscriber = await cms.call({
      method: 'GET',
      url: '/cms-json/oembed/1.0/proxy?url=https%3A%2F%2Fexample.org%2F',
      as: 'sam',
    });
    expect(subscriber.statusCode).toBe(403);
  });

  it('refuses a provider on loopback with the default protection', async () => {
    const res = await cms.call({
      method: 'GET',
      url: `/cms-json/oembed/1.0/proxy?url=${encodeURIComponent(`${providerUrl}/page`)}`,
      as: 'conrad',
    });
    expect(res.json()).toMatchObject({ code: 'oembed_invalid_url', data: { status: 404 } });
  });

  it('discovers and fetches a loopback provider when the allow-list permits it, and answers own URLs locally', async () => {
    const saved = cms.site.oembed;
    cms.site.oembed = new OEmbedProxy({
      policy: new AddressPolicy({ allowedNetworks: ['127.0.0.1/32'], allowedPorts: 'any' }),
    });
    try {
      const res = await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/proxy?url=${encodeURIComponent(`${providerUrl}/page`)}&maxwidth=320`,
        as: 'conrad',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ type: 'video', title: 'Loop video' });
      expect(res.json().html).toContain(
        '<iframe class="cms-embedded-content" sandbox="allow-scripts" security="restricted"',
      );
      expect(res.json().html).toContain('width="320"');
      const noDiscover = await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/proxy?url=${encodeURIComponent(`${providerUrl}/page?x`)}&discover=false`,
        as: 'conrad',
      });
      expect(noDiscover.statusCode).toBe(404);
      const own = await cms.call({
        method: 'GET',
        url: `/cms-json/oembed/1.0/proxy?url=${encodeURIComponent(postLink)}`,
        as: 'conrad',
      });
      expect(own.json()).toMatchObject({ type: 'rich', title: 'Embed &#038; me' });
    } finally {
      cms.site.oembed = saved;
    }
  });

  it('validates format and maxwidth', async () => {
    const res = await cms.call({
      method: 'GET',
      url: '/cms-json/oembed/1.0/proxy?url=https%3A%2F%2Fx.test%2F&format=yaml',
      as: 'admin',
    });
    expect(res.json()).toMatchObject({ code: 'rest_invalid_param', data: { params: { format: expect.any(String) } } });
    // As in WordPress, maxwidth only has absint() as its sanitiser: a word becomes 0 rather than an error.
    const width = await cms.call({
      method: 'GET',
      url: '/cms-json/oembed/1.0/proxy?url=https%3A%2F%2Fx.test%2F&maxwidth=wide',
      as: 'admin',
    });
    expect(width.json().code).toBe('oembed_invalid_url');
  });
});
