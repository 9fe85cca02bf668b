/** Label sets of post types and taxonomies, built from their names the way WordPress words them. */

/** get_post_type_labels() for a type named `singular`/`plural`. */
export function postTypeLabels(singular: string, plural: string, hierarchical: boolean): Record<string, string | null> {
  const s = singular.toLowerCase();
  const p = plural.toLowerCase();
  return {
    name: plural,
    singular_name: singular,
    add_new: 'Add New',
    add_new_item: `Add New ${singular}`,
    edit_item: `Edit ${singular}`,
    new_item: `New ${singular}`,
    view_item: `View ${singular}`,
    view_items: `View ${plural}`,
    search_items: `Search ${plural}`,
    not_found: `No ${p} found.`,
    not_found_in_trash: `No ${p} found in Trash.`,
    parent_item_colon: hierarchical ? `Parent ${singular}:` : null,
    all_items: `All ${plural}`,
    archives: `${singular} Archives`,
    attributes: `${singular} Attributes`,
    insert_into_item: `Insert into ${s}`,
    uploaded_to_this_item: `Uploaded to this ${s}`,
    featured_image: 'Featured image',
    set_featured_image: 'Set featured image',
    remove_featured_image: 'Remove featured image',
    use_featured_image: 'Use as featured image',
    filter_items_list: `Filter ${p} list`,
    filter_by_date: 'Filter by date',
    items_list_navigation: `${plural} list navigation`,
    items_list: `${plural} list`,
    item_published: `${singular} published.`,
    item_published_privately: `${singular} published privately.`,
    item_reverted_to_draft: `${singular} reverted to draft.`,
    item_scheduled: `${singular} scheduled.`,
    item_updated: `${singular} updated.`,
    item_link: `${singular} Link`,
    item_link_description: `A link to a ${s}.`,
    menu_name: plural,
    name_admin_bar: singular,
  };
}

/** get_taxonomy_labels() for a taxonomy named `singular`/`plural`. */
export function taxonomyLabels(singular: string, plural: string, hierarchical: boolean): Record<string, string | null> {
  const s = singular.toLowerCase();
  const p = plural.toLowerCase();
  return {
    name: plural,
    singular_name: singular,
    search_items: `Search ${plural}`,
    popular_items: hierarchical ? null : `Popular ${plural}`,
    all_items: `All ${plural}`,
    parent_item: hierarchical ? `Parent ${singular}` : null,
    parent_item_colon: hierarchical ? `Parent ${singular}:` : null,
    name_field_description: 'The name is how it appears on your site.',
    slug_field_description:
      'The &#8220;slug&#8221; is the URL-friendly version of the name. It is usually all lowercase and contains only letters, numbers, and hyphens.',
    parent_field_description: hierarchical
      ? `Assign a parent term to create a hierarchy. The term Jazz, for example, would be the parent of Bebop and Big Band.`
      : null,
    desc_field_description: 'The description is not prominent by default; however, some themes may show it.',
    edit_item: `Edit ${singular}`,
    view_item: `View ${singular}`,
    update_item: `Update ${singular}`,
    add_new_item: `Add New ${singular}`,
    new_item_name: `New ${singular} Name`,
    separate_items_with_commas: hierarchical ? null : `Separate ${p} with commas`,
    add_or_remove_items: hierarchical ? null : `Add or remove ${p}`,
    choose_from_most_used: hierarchical ? null : `Choose from the most used ${p}`,
    not_found: `No ${p} found.`,
    no_terms: `No ${p}`,
    filter_by_item: hierarchical ? `Filter by ${s}` : null,
    items_list_navigation: `${plural} list navigation`,
    items_list: `${plural} list`,
    most_used: 'Most Used',
    back_to_items: `&larr; Go to ${plural}`,
    item_link: `${singular} Link`,
    item_link_description: `A link to a ${s}.`,
    menu_name: plural,
    name_admin_bar: singular,
  };
}
