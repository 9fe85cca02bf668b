import { describe, expect, it } from 'vitest';
import { defaultProviders, findProvider } from './providers.ts';

describe('findProvider', () => {
  const providers = defaultProviders('https://site.test');
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://www.youtube.com/oembed'],
    ['https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/oembed'],
    ['https://www.youtube.com/shorts/abc', 'https://www.youtube.com/oembed'],
    ['https://vimeo.com/76979871', 'https://vimeo.com/api/oembed.json'],
    ['https://soundcloud.com/artist/track', 'https://soundcloud.com/oembed'],
    ['https://open.spotify.com/track/123', 'https://embed.spotify.com/oembed/'],
    ['https://twitter.com/jack/status/20', 'https://publish.twitter.com/oembed'],
    ['https://x.com/jack/status/20', 'https://publish.twitter.com/oembed'],
    ['https://www.flickr.com/photos/x/1', 'https://www.flickr.com/services/oembed/'],
    ['https://www.tiktok.com/@someone/video/123', 'https://www.tiktok.com/oembed'],
    ['https://www.reddit.com/r/pics/comments/abc/title/', 'https://www.reddit.com/oembed'],
    ['https://www.ted.com/talks/some_talk', 'https://www.ted.com/services/v1/oembed.json'],
    ['https://videopress.com/v/abc', 'https://public-api.wordpress.com/oembed/?for=https%3A%2F%2Fsite.test'],
  ])('%s → %s', (url, endpoint) => {
    expect(findProvider(url, providers)).toBe(endpoint);
  });

  it('finds nothing for other sites', () => {
    expect(findProvider('https://example.com/page', providers)).toBeUndefined();
    expect(findProvider('https://www.reddit.com/r/pics/', providers)).toBeUndefined();
  });
});
