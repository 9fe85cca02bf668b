/** The post statuses (register_post_status in wp-includes/post.php, 6.1), plus the spec's `cf-disabled`. */

export interface PostStatusDef {
  slug: string;
  label: string;
  public: boolean;
  private: boolean;
  protected: boolean;
  internal: boolean;
  showInAdminStatusList: boolean;
  showInAdminAllList: boolean;
  publiclyQueryable: boolean;
  dateFloating: boolean;
}

function status(slug: string, label: string, flags: Partial<Omit<PostStatusDef, 'slug' | 'label'>>): PostStatusDef {
  return {
    slug,
    label,
    public: false,
    private: false,
    protected: false,
    internal: false,
    showInAdminStatusList: false,
    showInAdminAllList: false,
    publiclyQueryable: false,
    dateFloating: false,
    ...flags,
  };
}

const listed = { showInAdminStatusList: true, showInAdminAllList: true };

export const POST_STATUSES: readonly PostStatusDef[] = [
  status('publish', 'Published', { public: true, publiclyQueryable: true, ...listed }),
  status('future', 'Scheduled', { protected: true, ...listed }),
  status('draft', 'Draft', { protected: true, dateFloating: true, ...listed }),
  status('pending', 'Pending', { protected: true, dateFloating: true, ...listed }),
  status('private', 'Private', { private: true, ...listed }),
  status('trash', 'Trash', { internal: true, showInAdminStatusList: true }),
  status('auto-draft', 'auto-draft', { internal: true, dateFloating: true }),
  status('inherit', 'inherit', { internal: true }),
  status('request-pending', 'Pending', { internal: true }),
  status('request-confirmed', 'Confirmed', { internal: true }),
  status('request-failed', 'Failed', { internal: true }),
  status('request-completed', 'Completed', { internal: true }),
  // A plugin status named in the spec's writable values; behaves like a protected, listed status.
  status('cf-disabled', 'Disabled', { protected: true, ...listed }),
];

const bySlug = new Map(POST_STATUSES.map((s) => [s.slug, s]));

/** get_post_status_object(). */
export function getPostStatus(slug: string): PostStatusDef | undefined {
  return bySlug.get(slug);
}
