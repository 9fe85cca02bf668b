/**
 * The public site in a real browser (Debian's Chromium driven by playwright-core): the front page, a
 * post, a page, an archive and a search render, and their links lead where they should.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteServiceOf } from '../src/site/site-module.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = !existsSync(CHROMIUM);

describe.skipIf(skip)(
  `the site in Chromium (${skip ? `skipped: no browser at ${CHROMIUM}; apt-get install chromium` : CHROMIUM})`,
  () => {
    let cms: SiteTestCms;
    let browser: Browser;
    let base = '';

    beforeAll(async () => {
      cms = await createSiteTestCms();
      await cms.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(cms.app.server.address() as AddressInfo).port}`;
      await cms.ctx.options.set('home', base);
      await cms.ctx.options.set('siteurl', base);
      await cms.ctx.options.set('blogname', 'Browser Site');
      const service = siteServiceOf(cms.ctx);
      if (service) service.chromeTtlMs = 0;
      const call = (url: string, payload: Record<string, unknown>) =>
        cms.call({ method: 'POST', url: `/cms-json/cms/v2/${url}`, as: 'admin', payload });
      const travel = (await call('categories', { name: 'Travel' })).json();
      await call('posts', {
        title: 'Lisbon by tram',
        content: '<p>Tram 28 climbs to the castle.</p>',
        status: 'publish',
        categories: [travel.id],
      });
      await call('posts', {
        title: 'Porto in winter',
        content: '<p>Rain and port wine.</p>',
        status: 'publish',
        categories: [travel.id],
      });
      const about = (
        await call('pages', {
          title: 'About this site',
          content: '<p>Written by two travellers.</p>',
          status: 'publish',
        })
      ).json();
      const menu = (await call('menus', { name: 'Main', locations: ['primary'] })).json();
      await call('menu-items', { type: 'post_type', object_id: about.id, menus: menu.id, menu_order: 1 });
      await call('menu-items', { type: 'taxonomy', object_id: travel.id, menus: menu.id, menu_order: 2 });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
    });

    afterAll(async () => {
      await browser?.close();
      await cms?.close();
    });

    it('renders the front page and follows a post link', async () => {
      const page = await browser.newPage();
      const response = await page.goto(`${base}/`);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('Browser Site');
      const headings = await page.locator('h2.entry-title a').allTextContents();
      expect(headings).toEqual(['Porto in winter', 'Lisbon by tram']);
      await page.locator('h2.entry-title a', { hasText: 'Lisbon by tram' }).click();
      await page.waitForURL(`${base}/lisbon-by-tram/`);
      expect(await page.locator('h1.entry-title').textContent()).toBe('Lisbon by tram');
      expect(await page.locator('.entry-content').textContent()).toContain('Tram 28 climbs to the castle.');
      const oembed = await page.locator('link[type="application/json+oembed"]').getAttribute('href');
      expect(oembed).toBe(`${base}/cms-json/oembed/1.0/embed?url=${encodeURIComponent(`${base}/lisbon-by-tram/`)}`);
      await page.close();
    });

    it('reaches a page and an archive through the menu', async () => {
      const page = await browser.newPage();
      await page.goto(`${base}/`);
      await page.locator('nav.primary a', { hasText: 'About this site' }).click();
      await page.waitForURL(`${base}/about-this-site/`);
      expect(await page.locator('.entry-content').textContent()).toContain('Written by two travellers.');
      expect(await page.locator('nav.primary li.current-menu-item a').textContent()).toBe('About this site');
      await page.locator('nav.primary a', { hasText: 'Travel' }).click();
      await page.waitForURL(`${base}/category/travel/`);
      expect(await page.locator('h1.page-title').textContent()).toBe('Category: Travel');
      expect(await page.locator('h2.entry-title a').count()).toBe(2);
      await page.close();
    });

    it('searches with the form and shows a 404 for unknown pages', async () => {
      const page = await browser.newPage();
      await page.goto(`${base}/`);
      await page.locator('aside .search-field').fill('port wine');
      await page.locator('aside .search-submit').click();
      await page.waitForURL(`${base}/?s=port+wine`);
      expect(await page.locator('h1.page-title').textContent()).toBe('Search Results for: port wine');
      expect(await page.locator('h2.entry-title a').allTextContents()).toEqual(['Porto in winter']);
      const missing = await page.goto(`${base}/no-such-page/`);
      expect(missing?.status()).toBe(404);
      expect(await page.locator('h1.page-title').textContent()).toContain('can’t be found');
      await page.close();
    });

    it('embeds a post through its oEmbed iframe', async () => {
      const page = await browser.newPage();
      const res = await fetch(
        `${base}/cms-json/oembed/1.0/embed?url=${encodeURIComponent(`${base}/porto-in-winter/`)}`,
      );
      const { html } = (await res.json()) as { html: string };
      await page.setContent(`<!doctype html><html><body>${html}</body></html>`);
      const frame = page.frameLocator('iframe.cms-embedded-content');
      expect(await frame.locator('.cms-embed-heading a').textContent()).toBe('Porto in winter');
      await page.close();
    });
  },
);
