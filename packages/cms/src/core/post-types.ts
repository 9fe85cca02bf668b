/**
 * The post types of the site, as WordPress registers them (register_post_type in wp-includes/post.php,
 * 6.1), with `wp_` brand prefixes spelled `cms_`. Capabilities follow get_post_type_capabilities():
 * `capability_type` 'post' gives edit_posts, edit_others_posts, ...; 'page' gives edit_pages, ...
 */

/** The capability names of a post type (the `cap` object of a WP_Post_Type). */
export interface PostTypeCaps {
  edit_post: string;
  read_post: string;
  delete_post: string;
  edit_posts: string;
  edit_others_posts: string;
  delete_posts: string;
  publish_posts: string;
  read_private_posts: string;
  read: string;
  delete_private_posts: string;
  delete_published_posts: string;
  delete_others_posts: string;
  edit_private_posts: string;
  edit_published_posts: string;
  create_posts: string;
}

export interface PostTypeDef {
  slug: string;
  name: string;
  description: string;
  hierarchical: boolean;
  restBase: string;
  restNamespace: string;
  /** Whether meta capabilities (edit_post, ...) are mapped through map_meta_cap. */
  mapMetaCap: boolean;
  cap: PostTypeCaps;
  taxonomies: string[];
  viewable: boolean;
  icon: string | null;
  supports: Record<string, boolean>;
  labels: Record<string, string | null>;
}

/** get_post_type_capabilities() for a capability type like 'post' or ['block', 'blocks']. */
export function capabilitiesFor(
  singular: string,
  plural = `${singular}s`,
  overrides: Partial<PostTypeCaps> = {},
): PostTypeCaps {
  const caps: PostTypeCaps = {
    edit_post: `edit_${singular}`,
    read_post: `read_${singular}`,
    delete_post: `delete_${singular}`,
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    delete_posts: `delete_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
    read: 'read',
    delete_private_posts: `delete_private_${plural}`,
    delete_published_posts: `delete_published_${plural}`,
    delete_others_posts: `delete_others_${plural}`,
    edit_private_posts: `edit_private_${plural}`,
    edit_published_posts: `edit_published_${plural}`,
    create_posts: `edit_${plural}`,
  };
  return { ...caps, ...overrides };
}

const themeOptions: Partial<PostTypeCaps> = {
  edit_posts: 'edit_theme_options',
  edit_others_posts: 'edit_theme_options',
  delete_posts: 'edit_theme_options',
  publish_posts: 'edit_theme_options',
  read_private_posts: 'edit_theme_options',
  delete_private_posts: 'edit_theme_options',
  delete_published_posts: 'edit_theme_options',
  delete_others_posts: 'edit_theme_options',
  edit_private_posts: 'edit_theme_options',
  edit_published_posts: 'edit_theme_options',
  create_posts: 'edit_theme_options',
};

function labels(singular: string, plural: string): Record<string, string | null> {
  return { name: plural, singular_name: singular };
}

export const POST_TYPES: readonly PostTypeDef[] = [
  {
    slug: 'post',
    name: 'Posts',
    description: '',
    hierarchical: false,
    restBase: 'posts',
    restNamespace: 'cms/v2',
    mapMetaCap: true,
    cap: capabilitiesFor('post'),
    taxonomies: ['category', 'post_tag'],
    viewable: true,
    icon: 'dashicons-admin-post',
    supports: {
      title: true,
      editor: true,
      author: true,
      thumbnail: true,
      excerpt: true,
      trackbacks: true,
      'custom-fields': true,
      comments: true,
      revisions: true,
      'post-formats': true,
    },
    labels: labels('Post', 'Posts'),
  },
  {
    slug: 'page',
    name: 'Pages',
    description: '',
    hierarchical: true,
    restBase: 'pages',
    restNamespace: 'cms/v2',
    mapMetaCap: true,
    cap: capabilitiesFor('page'),
    taxonomies: [],
    viewable: true,
    icon: 'dashicons-admin-page',
    supports: {
      title: true,
      editor: true,
      author: true,
      thumbnail: true,
      'page-attributes': true,
      'custom-fields': true,
      comments: true,
      revisions: true,
    },
    labels: labels('Page', 'Pages'),
  },
  {
    slug: 'attachment',
    name: 'Media',
    description: '',
    hierarchical: false,
    restBase: 'media',
    restNamespace: 'cms/v2',
    mapMetaCap: true,
    cap: capabilitiesFor('post', 'posts', { create_posts: 'upload_files' }),
    taxonomies: [],
    viewable: true,
    icon: 'dashicons-admin-media',
    supports: { title: true, author: true, comments: true },
    labels: labels('Media', 'Media'),
  },
  {
    slug: 'nav_menu_item',
    name: 'Navigation Menu Items',
    description: '',
    hierarchical: false,
    restBase: 'menu-items',
    restNamespace: 'cms/v2',
    mapMetaCap: true,
    cap: capabilitiesFor('post', 'posts', themeOptions),
    taxonomies: ['nav_menu'],
    viewable: false,
    icon: null,
    supports: { title: true, editor: true },
    labels: labels('Navigation Menu Item', 'Navigation Menu Items'),
  },
  {
    slug: 'cms_block',
    name: 'Reusable blocks',
    description: '',
    hierarchical: false,
    restBase: 'blocks',
    restNamespace: 'cms/v2',
    mapMetaCap: true,
    cap: capabilitiesFor('block', 'blocks', {
      read: 'edit_posts',
      create_posts: 'publish_posts',
      edit_posts: 'edit_posts',
      edit_published_posts: 'edit_published_posts',
      delete_published_posts: 'delete_published_posts',
      edit_others_posts: 'edit_others_posts',
      delete_others_posts: 'delete_others_posts',
    }),
    taxonomies: ['cms_pattern_category'],
    viewable: false,
    icon: null,
    supports: { title: true, editor: true, revisions: true },
    labels: labels('Reusable block', 'Reusable blocks'),
  },
];

const bySlug = new Map(POST_TYPES.map((t) => [t.slug, t]));

/** get_post_type_object(). */
export function getPostType(slug: string): PostTypeDef | undefined {
  return bySlug.get(slug);
}

/**
 * Capability names that are another name for a post type's meta capability (`edit_block` ->
 * `edit_post`), which map_meta_cap resolves through the post type.
 */
export function postTypeMetaCaps(): Map<string, string> {
  const map = new Map<string, string>();
  for (const t of POST_TYPES) {
    if (!t.mapMetaCap) continue;
    for (const meta of ['edit_post', 'read_post', 'delete_post'] as const) {
      if (t.cap[meta] !== meta) map.set(t.cap[meta], meta);
    }
  }
  return map;
}
