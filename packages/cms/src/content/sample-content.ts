/**
 * The sample content of a new site, made through the content service like any other content: the
 * posts and pages WordPress installs (a first post, a sample page, a draft privacy policy page) and a
 * few more showing blocks, the more tag, a sticky post and a child page.
 */
import type { ContentService } from './content-service.ts';

const block = (name: string, html: string, attrs = ''): string =>
  `<!-- wp:${name}${attrs ? ` ${attrs}` : ''} -->\n${html}\n<!-- /wp:${name} -->`;

/** Creates the sample posts and pages as `adminId`. */
export async function seedSampleContent(service: ContentService, adminId: number): Promise<void> {
  const ctx = { actorId: adminId, canPublish: true };
  await service.create(
    'post',
    {
      title: 'Hello world!',
      content: block(
        'paragraph',
        '<p>Welcome to your new site. This is your first post. Edit or delete it, then start writing!</p>',
      ),
      status: 'publish',
    },
    ctx,
  );
  const about = await service.create(
    'page',
    {
      title: 'Sample Page',
      content: [
        block(
          'paragraph',
          "<p>This is an example page. It's different from a blog post because it will stay in one place and will show up in your site navigation.</p>",
        ),
        block(
          'quote',
          '<blockquote class="wp-block-quote"><p>Hi there! I\'m a bike messenger by day, aspiring actor by night.</p></blockquote>',
        ),
      ].join('\n\n'),
      status: 'publish',
    },
    ctx,
  );
  await service.create(
    'page',
    {
      title: 'Privacy Policy',
      content:
        block('heading', '<h2>Who we are</h2>') +
        '\n\n' +
        block('paragraph', '<p>Our website address is this site.</p>'),
      status: 'draft',
    },
    ctx,
  );
  await service.create(
    'page',
    {
      title: 'Our Team',
      content: block('paragraph', '<p>The people behind the site.</p>'),
      status: 'publish',
      parentId: about.id,
      menuOrder: 1,
    },
    ctx,
  );
  await service.create(
    'post',
    {
      title: 'Writing with blocks',
      content: [
        block(
          'paragraph',
          '<p>Posts are made of <strong>blocks</strong>: paragraphs, headings, lists, quotes and more.</p>',
        ),
        block('heading', '<h2>Lists</h2>'),
        block('list', '<ul><li>First item</li><li>Second item</li></ul>'),
        block('more', '<!--more-->'),
        block('paragraph', '<p>Everything after the more tag stays out of the excerpt.</p>'),
      ].join('\n\n'),
      status: 'publish',
      sticky: true,
    },
    ctx,
  );
  await service.create(
    'post',
    {
      title: 'A classic post',
      content: 'Classic content has no blocks.\n\nBlank lines make paragraphs, and "quotes" become curly.',
      excerpt: 'A hand-written excerpt.',
      status: 'publish',
      format: 'aside',
    },
    ctx,
  );
}
