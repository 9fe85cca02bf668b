import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCmsConfig } from '../config.ts';
import { siteEnvironment } from './site-runtime.ts';

const configOf = (vars: Record<string, string>, file?: string) =>
  loadCmsConfig({ env: { DATA_DIR: '/srv/cms', ...vars }, ...(file ? { file } : {}) });

describe('siteEnvironment', () => {
  it('has defaults under DATA_DIR', () => {
    expect(siteEnvironment(configOf({}))).toEqual({
      maxUploadBytes: 64 * 1024 * 1024,
      uploadsDir: '/srv/cms/uploads',
      oembedAllowedNetworks: [],
    });
  });

  it('reads the upload limit, the uploads folder and the oEmbed allow-list', () => {
    expect(
      siteEnvironment(
        configOf({
          CMS_MAX_UPLOAD_MB: '2.5',
          CMS_UPLOADS_DIR: '/var/uploads',
          CMS_OEMBED_ALLOW_NETWORKS: '10.0.0.0/8, fd00::/8',
        }),
      ),
    ).toEqual({
      maxUploadBytes: 2_621_440,
      uploadsDir: '/var/uploads',
      oembedAllowedNetworks: ['10.0.0.0/8', 'fd00::/8'],
    });
  });

  it('reads them from CONFIG_FILE too, like every other setting, the environment first', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cms-config-')), 'cms.json');
    writeFileSync(file, JSON.stringify({ CMS_MAX_UPLOAD_MB: 8, CMS_UPLOADS_DIR: '/mnt/uploads' }));
    expect(siteEnvironment(configOf({}, file))).toMatchObject({
      maxUploadBytes: 8 * 1024 * 1024,
      uploadsDir: '/mnt/uploads',
    });
    expect(siteEnvironment(configOf({ CMS_MAX_UPLOAD_MB: '1' }, file)).maxUploadBytes).toBe(1024 * 1024);
  });

  it('refuses bad values with one line naming the variable', () => {
    expect(() => configOf({ CMS_MAX_UPLOAD_MB: 'lots' })).toThrow(
      'Invalid configuration: CMS_MAX_UPLOAD_MB must be a positive number of megabytes (got "lots")',
    );
    expect(() => configOf({ CMS_MAX_UPLOAD_MB: '0' })).toThrow(/^Invalid configuration: CMS_MAX_UPLOAD_MB must be/);
    expect(() => siteEnvironment(configOf({ CMS_OEMBED_ALLOW_NETWORKS: '10.0.0.0/99' }))).toThrow(
      'Invalid configuration: CMS_OEMBED_ALLOW_NETWORKS has an invalid network "10.0.0.0/99"',
    );
  });
});
