import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteServiceOf } from '../src/site/site-module.ts';
import { makeImage } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
const ids: Record<string, number> = {};
const links: Record<string, string> = {};

async function api(method: string, url: string, payload?: Record<string, unknown>) {
  const res = await cms.call({
    method: method as 'POST',
    url: `/cms-json/cms/v2${url}`,
    as: 'admin',
    ...(payload ? { payload } : {}),
  });
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.body}`);
  return res.json();
}

const get = (url: string, headers: Record<string, string> = {}) => cms.call({ method: 'GET', url, headers });

beforeAll(async () => {
  cms = await createSiteTestCms();
  await cms.ctx.options.set('blogdescription', 'Just another test site');
  await cms.ctx.options.set('posts_per_page', 2);
  const tech = await api('POST', '/categories', { name: 'Technology' });
  const web = await api('POST', '/categories', { name: 'Web', parent: tech.id });
  const tag = await api('POST', '/tags', { name: 'Nebula' });
  const image = await cms.call({
    method: 'POST',
    url: '/cms-json/cms/v2/media',
    as: 'admin',
    headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="cover.png"' },
    payload: await makeImage(1200, 800, 'png'),
  });
  ids.image = image.json().id;
  const posts = [
    {
      key: 'first',
      title: 'First post',
      content: '<p>Alpha & omega</p>',
      date: '2024-01-10T10:00:00',
      categories: [tech.id],
    },
    {
      key: 'second',
      title: 'Second <em>post</em>',
      content: '<p>Beta about the nebula</p>',
      date: '2024-02-10T10:00:00',
      categories: [web.id],
      tags: [tag.id],
      featured_media: ids.image,
    },
    { key: 'third', title: 'Third post', content: '<p>Gamma</p>', date: '2024-03-10T10:00:00', categories: [tech.id] },
    {
      key: 'secret',
      title: 'Secret post',
      content: '<p>Hidden words</p>',
      date: '2024-03-11T10:00:00',
      password: 'open sesame',
    },
  ];
  for (const p of posts) {
    const { key, ...body } = p;
    const created = await api('POST', '/posts', { ...body, status: 'publish' });
    ids[key] = created.id;
    links[key] = created.link;
  }
  const draft = await api('POST', '/posts', { title: 'Unfinished', content: 'not yet', status: 'draft' });
  ids.draft = draft.id;
  const about = await api('POST', '/pages', {
    title: 'About',
    content: '<p>About us</p>',
    status: 'publish',
    menu_order: 1,
  });
  const team = await api('POST', '/pages', {
    title: 'Team',
    content: '<p>The team</p>',
    status: 'publish',
    parent: about.id,
  });
  const blog = await api('POST', '/pages', { title: 'Blog', content: '', status: 'publish', menu_order: 2 });
  ids.about = about.id;
  ids.team = team.id;
  ids.blog = blog.id;
  links.about = about.link;
  links.team = team.link;
});
afterAll(async () => {
  await cms?.close();
});

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('the public site', () => {
  it('shows the latest posts on the front page, paginated, newest first, escaped', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(res.headers.link).toBe('<http://cms.test/cms-json/>; rel="https://api.w.org/"');
    const html = res.body;
    expect(html).toContain('<title>Test Site – Just another test site</title>');
    expect(html.indexOf('Secret post')).toBeLessThan(html.indexOf('Third post'));
    expect(html).toContain('There is no excerpt because this is a protected post.');
    expect(html).toContain('href="http://cms.test/page/2/"');
    expect(html).not.toContain('Unfinished');
    const page2 = await get('/page/2/');
    expect(page2.body).toContain('Second <em>post</em>');
    expect(page2.body).toContain('href="http://cms.test/"');
    expect((await get('/page/9/')).statusCode).toBe(404);
  });

  it('renders a single post with its meta, terms, featured image and discovery links', async () => {
    expect(links.second).toBe('http://cms.test/second-post/');
    const res = await get('/second-post/');
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain('<h1 class="entry-title">Second <em>post</em></h1>');
    expect(html).toContain('<p>Beta about the nebula</p>');
    expect(html).toContain('<time datetime="2024-02-10T10:00:00+00:00">February 10, 2024</time>');
    expect(html).toContain('<a href="http://cms.test/category/technology/web/" rel="category tag">Web</a>');
    expect(html).toContain('<a href="http://cms.test/tag/nebula/" rel="tag">Nebula</a>');
    expect(html).toContain('<a href="http://cms.test/author/admin/" rel="author">Admin</a>');
    expect(html).toMatch(
      /<img src="http:\/\/cms\.test\/cms-content\/uploads\/\d{4}\/\d{2}\/cover-1024x683\.png" width="1024" height="683"/,
    );
    expect(html).toContain(
      '<link rel="alternate" type="application/json+oembed" href="http://cms.test/cms-json/oembed/1.0/embed?url=http%3A%2F%2Fcms.test%2Fsecond-post%2F" />',
    );
    expect(html).toContain(
      'type="text/xml+oembed" href="http://cms.test/cms-json/oembed/1.0/embed?url=http%3A%2F%2Fcms.test%2Fsecond-post%2F&amp;format=xml"',
    );
    expect(html).toContain('<link rel="canonical" href="http://cms.test/second-post/" />');
    expect(res.headers.link).toContain(
      `<http://cms.test/cms-json/cms/v2/posts/${ids.second}>; rel="alternate"; type="application/json"`,
    );
  });

  it('serves pages by their path and redirects plain links to pretty ones', async () => {
    expect(links.team).toBe('http://cms.test/about/team/');
    const team = await get('/about/team/');
    expect(team.statusCode).toBe(200);
    expect(team.body).toContain('<p>The team</p>');
    expect((await get('/team/')).statusCode).toBe(404);
    const plain = await get(`/?p=${ids.first}`);
    expect(plain.statusCode).toBe(301);
    expect(plain.headers.location).toBe('http://cms.test/first-post/');
    const pageId = await get(`/?page_id=${ids.team}`);
    expect(pageId.headers.location).toBe('http://cms.test/about/team/');
    expect((await get(`/?p=${ids.draft}`)).statusCode).toBe(404);
  });

  it('asks for the password of a protected post and shows it after the form is sent', async () => {
    const locked = await get('/secret-post/');
    expect(locked.body).toContain('This content is password protected.');
    expect(locked.body).not.toContain('Hidden words');
    const form = await cms.call({
      method: 'POST',
      url: '/cms-postpass',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'post_password=open+sesame&redirect_to=http%3A%2F%2Fcms.test%2Fsecret-post%2F',
    });
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toBe('http://cms.test/secret-post/');
    const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
    const open = await get('/secret-post/', { cookie });
    expect(open.body).toContain('Hidden words');
    const evil = await cms.call({
      method: 'POST',
      url: '/cms-postpass',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'post_password=x&redirect_to=https%3A%2F%2Fevil.test%2F',
    });
    expect(evil.headers.location).toBe('http://cms.test/');
  });

  it('lists category (with children), tag, author and date archives', async () => {
    const tech = await get('/category/technology/');
    expect(tech.statusCode).toBe(200);
    expect(tech.body).toContain('Category: <span>Technology</span>');
    expect(count(tech.body, 'class="entry-title"')).toBe(2);
    expect(tech.body).toContain('href="http://cms.test/category/technology/page/2/"');
    const techPage2 = await get('/category/technology/page/2/');
    expect(techPage2.body).toContain('First post');
    const web = await get('/category/technology/web/');
    expect(web.body).toContain('Second <em>post</em>');
    expect(web.body).not.toContain('Third post</a></h2>');
    expect((await get('/tag/nebula/')).body).toContain('Second <em>post</em>');
    expect((await get('/author/admin/')).body).toContain('Author: <span>Admin</span>');
    const month = await get('/2024/02/');
    expect(month.body).toContain('Month: <span>February 2024</span>');
    expect(month.body).toContain('Second <em>post</em>');
    expect(month.body).not.toContain('Third post</a></h2>');
    expect((await get('/2024/02/10/')).body).toContain('Day: <span>February 10, 2024</span>');
    expect((await get('/category/nope/')).statusCode).toBe(404);
    expect((await get('/tag/nope/')).statusCode).toBe(404);
    expect((await get('/author/nobody/')).statusCode).toBe(404);
  });

  it('searches posts and pages, escaping the query', async () => {
    const res = await get('/?s=nebula');
    expect(res.body).toContain('Search Results for: <span>nebula</span>');
    expect(res.body).toContain('Second <em>post</em>');
    const xss = await get(`/?s=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(xss.statusCode).toBe(200);
    expect(xss.body).not.toContain('<script>alert(1)</script>');
    expect(xss.body).toContain('&quot;&gt;&lt;script&gt;');
    expect(xss.body).toContain('Sorry, but nothing matched your search terms.');
    expect((await get('/?s=team')).body).toContain('Team');
  });

  it('answers unknown paths with the 404 page', async () => {
    const res = await get('/no-such-thing/');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('That page can&rsquo;t be found.');
  });

  it('shows a static front page and the posts page when show_on_front is page', async () => {
    await cms.ctx.options.set('show_on_front', 'page');
    await cms.ctx.options.set('page_on_front', ids.about);
    await cms.ctx.options.set('page_for_posts', ids.blog);
    try {
      const front = await get('/');
      expect(front.body).toContain('<p>About us</p>');
      const about = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/pages/${ids.about}` });
      expect(about.json().link).toBe('http://cms.test/');
      const blog = await get('/blog/');
      expect(blog.statusCode).toBe(200);
      expect(blog.body).toContain('Secret post');
    } finally {
      await cms.ctx.options.set('show_on_front', 'posts');
      await cms.ctx.options.set('page_on_front', 0);
      await cms.ctx.options.set('page_for_posts', 0);
    }
  });

  it('builds the navigation from the primary menu location', async () => {
    const menu = await api('POST', '/menus', { name: 'Primary', locations: ['primary'] });
    await api('POST', '/menu-items', { type: 'post_type', object_id: ids.about, menus: menu.id, menu_order: 1 });
    await api('POST', '/menu-items', {
      title: 'Docs & <b>More</b>',
      url: 'https://docs.example.org/',
      menus: menu.id,
      menu_order: 2,
      target: '_blank',
    });
    // The header and menu are reused for a moment between requests; make the test see the new menu now.
    const service = siteServiceOf(cms.ctx);
    if (service) service.chromeTtlMs = 0;
    const res = await get('/about/');
    expect(res.body).toContain(
      '<li class="menu-item current-menu-item"><a href="http://cms.test/about/" aria-current="page">About</a></li>',
    );
    expect(res.body).toContain('<a href="https://docs.example.org/" target="_blank">Docs &#038; <b>More</b></a>');
  });

  it('publishes an RSS 2.0 feed for the site and for archives', async () => {
    const feed = await get('/feed/');
    expect(feed.headers['content-type']).toBe('application/rss+xml; charset=UTF-8');
    expect(feed.body).toContain('<title>Test Site</title>');
    expect(feed.body).toContain('<atom:link href="http://cms.test/feed/" rel="self" type="application/rss+xml" />');
    expect(feed.body).toContain('<title>Second post</title>');
    expect(feed.body).toContain('<content:encoded><![CDATA[<p>Beta about the nebula</p>');
    expect(feed.body).toContain(
      '<description><![CDATA[There is no excerpt because this is a protected post.]]></description>',
    );
    expect(feed.body).toContain('<pubDate>Sat, 10 Feb 2024 10:00:00 +0000</pubDate>');
    const tagFeed = await get('/tag/nebula/feed/');
    expect(tagFeed.body).toContain('<link>http://cms.test/tag/nebula/</link>');
    expect(count(tagFeed.body, '<item>')).toBe(1);
    expect((await get('/?feed=rss2')).statusCode).toBe(200);
  });

  it('publishes sitemaps and robots.txt', async () => {
    const index = await get('/cms-sitemap.xml');
    expect(index.headers['content-type']).toBe('application/xml; charset=UTF-8');
    expect(index.body).toContain('<loc>http://cms.test/cms-sitemap-posts-post-1.xml</loc>');
    expect(index.body).toContain('<loc>http://cms.test/cms-sitemap-taxonomies-post_tag-1.xml</loc>');
    const posts = await get('/cms-sitemap-posts-post-1.xml');
    expect(posts.body).toContain('<loc>http://cms.test/first-post/</loc>');
    expect(posts.body).not.toContain('secret-post');
    const pages = await get('/cms-sitemap-posts-page-1.xml');
    expect(pages.body).toContain(
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://cms.test/</loc>',
    );
    expect(pages.body).toContain('<loc>http://cms.test/about/team/</loc>');
    expect((await get('/cms-sitemap-users-1.xml')).body).toContain('<loc>http://cms.test/author/admin/</loc>');
    const redirect = await get('/sitemap.xml');
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('http://cms.test/cms-sitemap.xml');
    expect((await get('/robots.txt')).body).toContain('Sitemap: http://cms.test/cms-sitemap.xml');
    expect((await get('/cms-sitemap-posts-post-9.xml')).statusCode).toBe(404);
  });

  it('closes the site to search engines when blog_public is 0, as WordPress does', async () => {
    await cms.ctx.options.set('blog_public', '0');
    try {
      expect((await get('/robots.txt')).body).toBe('User-agent: *\nDisallow: /\n');
      expect((await get('/cms-sitemap.xml')).statusCode).toBe(404);
      // wp_robots_no_robots(): every page of a site that is not public, searches and embeds included.
      for (const url of ['/', '/first-post/', '/?s=post', '/second-post/embed/', '/no-such-page/']) {
        const page = await get(url);
        expect(page.body, url).toContain('<meta name="robots" content="noindex, nofollow" />');
        expect(page.body.match(/<meta name="robots"/g), url).toHaveLength(1);
      }
    } finally {
      await cms.ctx.options.set('blog_public', '1');
    }
    expect((await get('/first-post/')).body).not.toContain('<meta name="robots"');
  });

  it('serves uploaded files with their type and refuses paths outside the uploads', async () => {
    const media = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/media/${ids.image}` });
    const url = new URL(media.json().source_url);
    const file = await get(url.pathname);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    expect((await get('/cms-content/uploads/../../etc/passwd')).statusCode).toBe(404);
    expect((await get('/cms-content/uploads/%2e%2e/%2e%2e/etc/passwd')).statusCode).toBe(404);
    expect((await get('/cms-content/uploads/2026/11/missing.png')).statusCode).toBe(404);
  });

  it('shows the embed view of a post for the oEmbed iframe', async () => {
    const res = await get('/second-post/embed/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(
      '<p class="cms-embed-heading"><a href="http://cms.test/second-post/">Second <em>post</em></a></p>',
    );
    expect(res.body).toContain('<meta name="robots" content="noindex, follow" />');
  });

  it('gives every REST object a link that the site serves', async () => {
    const sources = [
      `/cms-json/cms/v2/posts?per_page=100`,
      `/cms-json/cms/v2/pages?per_page=100`,
      `/cms-json/cms/v2/categories?per_page=100`,
      `/cms-json/cms/v2/tags?per_page=100`,
      `/cms-json/cms/v2/users?per_page=100`,
      `/cms-json/cms/v2/media?per_page=100`,
    ];
    for (const source of sources) {
      const list = await cms.call({ method: 'GET', url: source });
      for (const item of list.json() as Array<{ link: string }>) {
        const url = new URL(item.link);
        const res = await get(`${url.pathname}${url.search}`);
        expect([200, 301], `${item.link} from ${source}`).toContain(res.statusCode);
      }
    }
  });
});
