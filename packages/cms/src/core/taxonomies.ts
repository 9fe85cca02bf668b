/** The taxonomies of the site (register_taxonomy in wp-includes/taxonomy.php, 6.1). */

export interface TaxonomyCaps {
  manage_terms: string;
  edit_terms: string;
  delete_terms: string;
  assign_terms: string;
}

export interface TaxonomyDef {
  slug: string;
  name: string;
  description: string;
  hierarchical: boolean;
  restBase: string;
  restNamespace: string;
  objectTypes: string[];
  cap: TaxonomyCaps;
  showCloud: boolean;
  labels: Record<string, string | null>;
  /** The WP_REST controller error prefix differs per taxonomy only by message; kept for the terms controller. */
  visibility: {
    public: boolean;
    publicly_queryable: boolean;
    show_admin_column: boolean;
    show_in_nav_menus: boolean;
    show_in_quick_edit: boolean;
    show_ui: boolean;
  };
}

export const TAXONOMIES: readonly TaxonomyDef[] = [
  {
    slug: 'category',
    name: 'Categories',
    description: '',
    hierarchical: true,
    restBase: 'categories',
    restNamespace: 'cms/v2',
    objectTypes: ['post'],
    cap: {
      manage_terms: 'manage_categories',
      edit_terms: 'edit_categories',
      delete_terms: 'delete_categories',
      assign_terms: 'assign_categories',
    },
    showCloud: true,
    labels: { name: 'Categories', singular_name: 'Category' },
    visibility: {
      public: true,
      publicly_queryable: true,
      show_admin_column: true,
      show_in_nav_menus: true,
      show_in_quick_edit: true,
      show_ui: true,
    },
  },
  {
    slug: 'post_tag',
    name: 'Tags',
    description: '',
    hierarchical: false,
    restBase: 'tags',
    restNamespace: 'cms/v2',
    objectTypes: ['post'],
    cap: {
      manage_terms: 'manage_post_tags',
      edit_terms: 'edit_post_tags',
      delete_terms: 'delete_post_tags',
      assign_terms: 'assign_post_tags',
    },
    showCloud: true,
    labels: { name: 'Tags', singular_name: 'Tag' },
    visibility: {
      public: true,
      publicly_queryable: true,
      show_admin_column: true,
      show_in_nav_menus: true,
      show_in_quick_edit: true,
      show_ui: true,
    },
  },
  {
    slug: 'nav_menu',
    name: 'Navigation Menus',
    description: '',
    hierarchical: false,
    restBase: 'menus',
    restNamespace: 'cms/v2',
    objectTypes: ['nav_menu_item'],
    cap: {
      manage_terms: 'edit_theme_options',
      edit_terms: 'edit_theme_options',
      delete_terms: 'edit_theme_options',
      assign_terms: 'edit_theme_options',
    },
    showCloud: false,
    labels: { name: 'Navigation Menus', singular_name: 'Navigation Menu' },
    visibility: {
      public: false,
      publicly_queryable: false,
      show_admin_column: false,
      show_in_nav_menus: true,
      show_in_quick_edit: false,
      show_ui: false,
    },
  },
  {
    // WordPress 6.5's wp_pattern_category, which the spec's `pattern_category` block filters query.
    slug: 'cms_pattern_category',
    name: 'Pattern Categories',
    description: '',
    hierarchical: false,
    restBase: 'pattern_category',
    restNamespace: 'cms/v2',
    objectTypes: ['cms_block'],
    cap: {
      manage_terms: 'manage_categories',
      edit_terms: 'manage_categories',
      delete_terms: 'manage_categories',
      assign_terms: 'edit_posts',
    },
    showCloud: false,
    labels: { name: 'Pattern Categories', singular_name: 'Pattern Category' },
    visibility: {
      public: false,
      publicly_queryable: false,
      show_admin_column: true,
      show_in_nav_menus: false,
      show_in_quick_edit: true,
      show_ui: true,
    },
  },
];

const bySlug = new Map(TAXONOMIES.map((t) => [t.slug, t]));

/** get_taxonomy(). */
export function getTaxonomy(slug: string): TaxonomyDef | undefined {
  return bySlug.get(slug);
}
