import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy.ts';
import { OEmbedProxy } from './oembed-proxy.ts';
import { checkUrl, safeFetch } from './safe-fetch.ts';

/** A provider on loopback: an oEmbed endpoint, pages with discovery links, redirects and misbehaviour. */
let server: http.Server;
let base = '';
let providerHits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/oembed': {
        providerHits += 1;
        const format = url.searchParams.get('format');
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            version: '1.0',
            type: 'video',
            title: 'Clip',
            provider_name: 'Loop',
            html: `<iframe src="${base}/player?u=${encodeURIComponent(url.searchParams.get('url') ?? '')}" width="${url.searchParams.get('maxwidth')}"></iframe>`,
            format,
            dnt: url.searchParams.get('dnt'),
            maxheight: url.searchParams.get('maxheight'),
          }),
        );
        return;
      }
      case '/oembed-xml-only': {
        if (url.searchParams.get('format') === 'json') {
          res.statusCode = 501;
          res.end();
          return;
        }
        res.setHeader('content-type', 'text/xml');
        res.end('<?xml version="1.0"?><oembed><type>link</type><title>From XML</title></oembed>');
        return;
      }
      case '/page':
        res.setHeader('content-type', 'text/html');
        res.end(
          `<html><head><link rel="alternate" type="application/json+oembed" href="${base}/oembed?url=ignored&amp;format=json"></head><body>hi</body></html>`,
        );
        return;
      case '/rich-page':
        res.end(`<html><head><link rel="alternate" type="application/json+oembed" href="${base}/rich"></head></html>`);
        return;
      case '/rich':
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            type: 'rich',
            title: 'R',
            html: '<script>steal()</script><iframe src="https://r.test/e"></iframe>',
          }),
        );
        return;
      case '/no-link':
        res.end('<html><head></head></html>');
        return;
      case '/redirect-private':
        res.statusCode = 302;
        res.setHeader('location', `http://127.0.0.2:${(server.address() as AddressInfo).port}/page`);
        res.end();
        return;
      case '/redirect-ok':
        res.statusCode = 301;
        res.setHeader('location', '/page');
        res.end();
        return;
      case '/huge':
        res.end('x'.repeat(300_000));
        return;
      case '/slow':
        // Never answers; the fetcher's time limit must end the exchange.
        return;
      default:
        res.statusCode = 404;
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const loopbackAllowed = () => new AddressPolicy({ allowedNetworks: ['127.0.0.1/32'], allowedPorts: 'any' });

describe('SSRF protection', () => {
  it('refuses loopback by default', async () => {
    await expect(
      safeFetch(`${base}/page`, { policy: new AddressPolicy({ allowedPorts: 'any' }) }),
    ).rejects.toMatchObject({
      reason: 'address',
    });
    await expect(checkUrl('http://127.0.0.1/', new AddressPolicy())).rejects.toMatchObject({ reason: 'address' });
    await expect(checkUrl('http://[::1]/', new AddressPolicy())).rejects.toMatchObject({ reason: 'address' });
    await expect(checkUrl('http://2130706433/', new AddressPolicy())).rejects.toMatchObject({ reason: 'address' });
  });

  it('refuses other schemes, credentials and unsafe ports', async () => {
    const policy = new AddressPolicy();
    await expect(checkUrl('file:///etc/passwd', policy)).rejects.toMatchObject({ reason: 'scheme' });
    await expect(checkUrl('gopher://x.test/', policy)).rejects.toMatchObject({ reason: 'scheme' });
    await expect(checkUrl('http://u:p@x.test/', policy)).rejects.toMatchObject({ reason: 'credentials' });
    await expect(checkUrl('http://x.test:22/', policy)).rejects.toMatchObject({ reason: 'port' });
  });

  it('refuses a host when any of its DNS answers is private, and pins to the checked address', async () => {
    const policy = loopbackAllowed();
    await expect(checkUrl('http://mixed.test/', policy, async () => ['127.0.0.1', '10.0.0.1'])).rejects.toMatchObject({
      reason: 'address',
    });
    // The name resolves (once) to loopback; the request reaches our server although "provider.test" does not exist.
    const port = (server.address() as AddressInfo).port;
    const response = await safeFetch(`http://provider.test:${port}/page`, {
      policy,
      resolve: async () => ['127.0.0.1'],
    });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toContain('application/json+oembed');
  });

  it('follows redirects but refuses one to a forbidden address', async () => {
    const policy = loopbackAllowed();
    expect((await safeFetch(`${base}/redirect-ok`, { policy })).url).toBe(`${base}/page`);
    await expect(safeFetch(`${base}/redirect-private`, { policy })).rejects.toMatchObject({ reason: 'address' });
  });

  it('enforces size and time limits', async () => {
    const policy = loopbackAllowed();
    await expect(safeFetch(`${base}/huge`, { policy, maxBytes: 100_000 })).rejects.toMatchObject({
      reason: 'too_large',
    });
    const truncated = await safeFetch(`${base}/huge`, { policy, maxBytes: 1000, oversize: 'truncate' });
    expect(truncated.body.byteLength).toBe(1000);
    await expect(safeFetch(`${base}/slow`, { policy, timeoutMs: 300 })).rejects.toMatchObject({ reason: 'timeout' });
  });
});

describe('OEmbedProxy', () => {
  it('fetches a listed provider with maxwidth, maxheight, url, dnt and format, and caches the answer', async () => {
    const proxy = new OEmbedProxy({
      policy: loopbackAllowed(),
      providers: [{ pattern: /^https:\/\/video\.test\//, endpoint: `${base}/oembed` }],
    });
    const before = providerHits;
    const data = await proxy.lookup({ url: 'https://video.test/v/1', maxwidth: 480 });
    expect(data).toMatchObject({ type: 'video', title: 'Clip', format: 'json', dnt: '1', maxheight: '750' });
    expect(data?.html).toBe(`<iframe src="${base}/player?u=https%3A%2F%2Fvideo.test%2Fv%2F1" width="480"></iframe>`);
    await proxy.lookup({ url: 'https://video.test/v/1', maxwidth: 480 });
    expect(providerHits - before).toBe(1);
  });

  it('discovers the provider from the page when discover is true, not when false', async () => {
    const proxy = new OEmbedProxy({ policy: loopbackAllowed(), providers: [] });
    const found = await proxy.lookup({ url: `${base}/page`, discover: true });
    expect(found).toMatchObject({ type: 'video', title: 'Clip' });
    // A discovered provider is not trusted: its HTML is reduced to a sandboxed iframe.
    expect(found?.html).toContain('sandbox="allow-scripts"');
    expect(await proxy.lookup({ url: `${base}/page?again`, discover: false })).toBeUndefined();
    expect(await proxy.lookup({ url: `${base}/no-link` })).toBeUndefined();
  });

  it('removes scripts from discovered rich HTML', async () => {
    const proxy = new OEmbedProxy({ policy: loopbackAllowed(), providers: [] });
    const data = await proxy.lookup({ url: `${base}/rich-page` });
    expect(data?.html).not.toContain('<script');
    expect(data?.html).not.toContain('steal');
    expect(data?.html).toContain('<iframe class="cms-embedded-content" sandbox="allow-scripts" security="restricted"');
  });

  it('falls back to XML when the provider does not implement JSON', async () => {
    const proxy = new OEmbedProxy({
      policy: loopbackAllowed(),
      providers: [{ pattern: /^https:\/\/xml\.test\//, endpoint: `${base}/oembed-xml-only` }],
    });
    expect(await proxy.lookup({ url: 'https://xml.test/a' })).toEqual({
      type: 'link',
      title: 'From XML',
      html: '<a href="https://xml.test/a">From XML</a>',
    });
  });

  it('with the default policy, a provider on loopback is never contacted', async () => {
    const before = providerHits;
    const proxy = new OEmbedProxy({ providers: [{ pattern: /^https:\/\/video\.test\//, endpoint: `${base}/oembed` }] });
    expect(await proxy.lookup({ url: 'https://video.test/v/2' })).toBeUndefined();
    expect(await proxy.lookup({ url: `${base}/page` })).toBeUndefined();
    expect(providerHits).toBe(before);
  });
});
