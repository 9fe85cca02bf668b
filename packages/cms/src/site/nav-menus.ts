/**
 * Navigation menus as WordPress keeps them: a menu is a term of the `nav_menu` taxonomy; its items are
 * `nav_menu_item` posts in that term; theme locations map to menus through the `nav_menu_locations`
 * option; `nav_menu_options.auto_add` lists menus that take new top-level pages.
 */
import type { OptionsRepository } from '../db/options-repository.ts';

/** The menu locations the built-in theme registers (`register_nav_menus`). */
export const REGISTERED_MENU_LOCATIONS: Readonly<Record<string, string>> = {
  primary: 'Primary menu',
  footer: 'Footer menu',
};

/** `get_nav_menu_locations()`: location → menu term id. */
export async function getMenuLocations(options: OptionsRepository): Promise<Record<string, number>> {
  const value = await options.get<unknown>('nav_menu_locations', {});
  const out: Record<string, number> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [location, id] of Object.entries(value as Record<string, unknown>)) {
      const n = Number(id);
      if (Number.isSafeInteger(n) && n > 0) out[location] = n;
    }
  }
  return out;
}

/** The locations a menu is assigned to. */
export async function locationsOfMenu(options: OptionsRepository, menuId: number): Promise<string[]> {
  const all = await getMenuLocations(options);
  return Object.entries(all)
    .filter(([, id]) => id === menuId)
    .map(([location]) => location);
}

/** `handle_locations()`: the menu is assigned exactly to `locations` (taken from other menus if needed). */
export async function assignMenuLocations(
  options: OptionsRepository,
  menuId: number,
  locations: readonly string[],
): Promise<void> {
  const current = await getMenuLocations(options);
  for (const [location, id] of Object.entries(current)) if (id === menuId) delete current[location];
  for (const location of locations) current[location] = menuId;
  await options.set('nav_menu_locations', current);
}

/** The menus that add new top-level pages automatically. */
export async function autoAddMenus(options: OptionsRepository): Promise<number[]> {
  const value = await options.get<unknown>('nav_menu_options', { auto_add: [] });
  const list = value && typeof value === 'object' ? (value as { auto_add?: unknown }).auto_add : undefined;
  return Array.isArray(list) ? list.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0) : [];
}

/** `handle_auto_add()`. */
export async function setAutoAdd(options: OptionsRepository, menuId: number, enabled: boolean): Promise<void> {
  const list = await autoAddMenus(options);
  const next = enabled ? (list.includes(menuId) ? list : [...list, menuId]) : list.filter((id) => id !== menuId);
  await options.set('nav_menu_options', { auto_add: next });
}

/** Forgets a deleted menu in locations and auto-add (`wp_delete_nav_menu`). */
export async function forgetMenu(options: OptionsRepository, menuId: number): Promise<void> {
  await assignMenuLocations(options, menuId, []);
  if ((await autoAddMenus(options)).includes(menuId)) await setAutoAdd(options, menuId, false);
}
