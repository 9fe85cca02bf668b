export * from './autop.ts';
export * from './blocks.ts';
export * from './content-renderer.ts';
export * from './content-tags.ts';
export * from './html.ts';
export * from './shortcodes.ts';
export * from './smilies.ts';
export * from './texturize.ts';
