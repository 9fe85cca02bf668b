import { describe, expect, it } from 'vitest';
import { siteEnvironment } from './site-runtime.ts';

describe('siteEnvironment', () => {
  it('has defaults under DATA_DIR', () => {
    expect(siteEnvironment('/srv/cms', {})).toEqual({
      maxUploadBytes: 64 * 1024 * 1024,
      uploadsDir: '/srv/cms/uploads',
      oembedAllowedNetworks: [],
    });
  });

  it('reads the upload limit, the uploads folder and the oEmbed allow-list', () => {
    expect(
      siteEnvironment('/srv/cms', {
        CMS_MAX_UPLOAD_MB: '2.5',
        CMS_UPLOADS_DIR: '/var/uploads',
        CMS_OEMBED_ALLOW_NETWORKS: '10.0.0.0/8, fd00::/8',
      }),
    ).toEqual({
      maxUploadBytes: 2_621_440,
      uploadsDir: '/var/uploads',
      oembedAllowedNetworks: ['10.0.0.0/8', 'fd00::/8'],
    });
  });

  it('refuses bad values with one line naming the variable', () => {
    expect(() => siteEnvironment('/d', { CMS_MAX_UPLOAD_MB: 'lots' })).toThrow(
      /^Invalid configuration: CMS_MAX_UPLOAD_MB/,
    );
    expect(() => siteEnvironment('/d', { CMS_OEMBED_ALLOW_NETWORKS: '10.0.0.0/99' })).toThrow(
      /CMS_OEMBED_ALLOW_NETWORKS/,
    );
  });
});
