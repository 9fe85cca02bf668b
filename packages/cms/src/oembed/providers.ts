/** A sanctioned oEmbed provider: URLs matching `pattern` are resolved at `endpoint`. */
export interface OEmbedProvider {
  pattern: RegExp;
  /** Endpoint URL; `{format}` is replaced by `json`. */
  endpoint: string;
}

const YOUTUBE = 'https://www.youtube.com/oembed';
const TWITTER = 'https://publish.twitter.com/oembed';
const AMAZON_US = 'https://read.amazon.com/kp/api/oembed';
const AMAZON_UK = 'https://read.amazon.co.uk/kp/api/oembed';
const AMAZON_AU = 'https://read.amazon.com.au/kp/api/oembed';
const AMAZON_CN = 'https://read.amazon.cn/kp/api/oembed';
const CROWDSIGNAL = 'https://api.crowdsignal.com/oembed';
const SOMEECARDS = 'https://www.someecards.com/v2/oembed/';
const KICKSTARTER = 'https://www.kickstarter.com/services/oembed';

/**
 * WordPress's sanctioned providers (class-wp-oembed.php), in its order, plus x.com, which publishes the same
 * oEmbed endpoint as twitter.com. `site` replaces WordPress's `home_url()` in the VideoPress endpoint.
 */
export function defaultProviders(site = ''): OEmbedProvider[] {
  const list: Array<[RegExp, string]> = [
    [/^https?:\/\/((m|www)\.)?youtube\.com\/watch.*/i, YOUTUBE],
    [/^https?:\/\/((m|www)\.)?youtube\.com\/playlist.*/i, YOUTUBE],
    [/^https?:\/\/((m|www)\.)?youtube\.com\/shorts\/*/i, YOUTUBE],
    [/^https?:\/\/youtu\.be\/.*/i, YOUTUBE],
    [/^https?:\/\/(.+\.)?vimeo\.com\/.*/i, 'https://vimeo.com/api/oembed.{format}'],
    [/^https?:\/\/(www\.)?dailymotion\.com\/.*/i, 'https://www.dailymotion.com/services/oembed'],
    [/^https?:\/\/dai\.ly\/.*/i, 'https://www.dailymotion.com/services/oembed'],
    [/^https?:\/\/(www\.)?flickr\.com\/.*/i, 'https://www.flickr.com/services/oembed/'],
    [/^https?:\/\/flic\.kr\/.*/i, 'https://www.flickr.com/services/oembed/'],
    [/^https?:\/\/(.+\.)?smugmug\.com\/.*/i, 'https://api.smugmug.com/services/oembed/'],
    [/^https?:\/\/(www\.)?scribd\.com\/(doc|document)\/.*/i, 'https://www.scribd.com/services/oembed'],
    [/^https?:\/\/wordpress\.tv\/.*/i, 'https://wordpress.tv/oembed/'],
    [/^https?:\/\/(.+\.)?polldaddy\.com\/.*/i, CROWDSIGNAL],
    [/^https?:\/\/poll\.fm\/.*/i, CROWDSIGNAL],
    [/^https?:\/\/(.+\.)?survey\.fm\/.*/i, CROWDSIGNAL],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/\w{1,15}\/status(es)?\/.*/i, TWITTER],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/\w{1,15}$/i, TWITTER],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/\w{1,15}\/likes$/i, TWITTER],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/\w{1,15}\/lists\/.*/i, TWITTER],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/\w{1,15}\/timelines\/.*/i, TWITTER],
    [/^https?:\/\/(www\.)?(twitter|x)\.com\/i\/moments\/.*/i, TWITTER],
    [/^https?:\/\/(www\.)?soundcloud\.com\/.*/i, 'https://soundcloud.com/oembed'],
    [/^https?:\/\/(.+?\.)?slideshare\.net\/.*/i, 'https://www.slideshare.net/api/oembed/2'],
    [/^https?:\/\/(open|play)\.spotify\.com\/.*/i, 'https://embed.spotify.com/oembed/'],
    [/^https?:\/\/(.+\.)?imgur\.com\/.*/i, 'https://api.imgur.com/oembed'],
    [/^https?:\/\/(www\.)?issuu\.com\/.+\/docs\/.+/i, 'https://issuu.com/oembed_wp'],
    [/^https?:\/\/(www\.)?mixcloud\.com\/.*/i, 'https://www.mixcloud.com/oembed'],
    [/^https?:\/\/(www\.|embed\.)?ted\.com\/talks\/.*/i, 'https://www.ted.com/services/v1/oembed.{format}'],
    [/^https?:\/\/(www\.)?(animoto|video214)\.com\/play\/.*/i, 'https://animoto.com/oembeds/create'],
    [/^https?:\/\/(.+)\.tumblr\.com\/post\/.*/i, 'https://www.tumblr.com/oembed/1.0'],
    [/^https?:\/\/(www\.)?kickstarter\.com\/projects\/.*/i, KICKSTARTER],
    [/^https?:\/\/kck\.st\/.*/i, KICKSTARTER],
    [/^https?:\/\/cloudup\.com\/.*/i, 'https://cloudup.com/oembed'],
    [/^https?:\/\/(www\.)?reverbnation\.com\/.*/i, 'https://www.reverbnation.com/oembed'],
    [/^https?:\/\/videopress\.com\/v\/.*/, `https://public-api.wordpress.com/oembed/?for=${encodeURIComponent(site)}`],
    [/^https?:\/\/(www\.)?reddit\.com\/r\/[^/]+\/comments\/.*/i, 'https://www.reddit.com/oembed'],
    [/^https?:\/\/(www\.)?speakerdeck\.com\/.*/i, 'https://speakerdeck.com/oembed.{format}'],
    [/^https?:\/\/(www\.)?screencast\.com\/.*/i, 'https://api.screencast.com/external/oembed'],
    [/^https?:\/\/([a-z0-9-]+\.)?amazon\.(com|com\.mx|com\.br|ca)\/.*/i, AMAZON_US],
    [/^https?:\/\/([a-z0-9-]+\.)?amazon\.(co\.uk|de|fr|it|es|in|nl|ru)\/.*/i, AMAZON_UK],
    [/^https?:\/\/([a-z0-9-]+\.)?amazon\.(co\.jp|com\.au)\/.*/i, AMAZON_AU],
    [/^https?:\/\/([a-z0-9-]+\.)?amazon\.cn\/.*/i, AMAZON_CN],
    [/^https?:\/\/(www\.)?a\.co\/.*/i, AMAZON_US],
    [/^https?:\/\/(www\.)?amzn\.to\/.*/i, AMAZON_US],
    [/^https?:\/\/(www\.)?amzn\.eu\/.*/i, AMAZON_UK],
    [/^https?:\/\/(www\.)?amzn\.in\/.*/i, 'https://read.amazon.in/kp/api/oembed'],
    [/^https?:\/\/(www\.)?amzn\.asia\/.*/i, AMAZON_AU],
    [/^https?:\/\/(www\.)?z\.cn\/.*/i, AMAZON_CN],
    [/^https?:\/\/www\.someecards\.com\/.+-cards\/.+/i, SOMEECARDS],
    [/^https?:\/\/www\.someecards\.com\/usercards\/viewcard\/.+/i, SOMEECARDS],
    [/^https?:\/\/some\.ly\/.+/i, SOMEECARDS],
    [/^https?:\/\/(www\.)?tiktok\.com\/.*\/video\/.*/i, 'https://www.tiktok.com/oembed'],
    [/^https?:\/\/([a-z]{2}|www)\.pinterest\.com(\.(au|mx))?\/.*/i, 'https://www.pinterest.com/oembed.json'],
    [/^https?:\/\/(www\.)?wolframcloud\.com\/obj\/.+/i, 'https://www.wolframcloud.com/oembed'],
    [/^https?:\/\/pca\.st\/.+/i, 'https://pca.st/oembed.json'],
  ];
  return list.map(([pattern, endpoint]) => ({ pattern, endpoint }));
}

/** The endpoint of the first provider whose pattern matches `url` (`WP_oEmbed::get_provider` without discovery). */
export function findProvider(url: string, providers: readonly OEmbedProvider[]): string | undefined {
  for (const provider of providers) {
    if (provider.pattern.test(url)) return provider.endpoint.replace('{format}', 'json');
  }
  return undefined;
}
