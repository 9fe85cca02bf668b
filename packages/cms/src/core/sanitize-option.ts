/**
 * sanitize_option() (formatting.php) for the options the settings endpoint writes: what update_option()
 * stores for a value the REST schema has already accepted. The site title and tagline are stored
 * escaped (esc_html, no double encoding: "A & B" as "A &amp; B"), date and time formats lose their tags
 * and keep a lone `&` as `&amp;` (wp_kses_data), page and category ids, the week's first day and the site
 * icon are absolute integers, `posts_per_page` is at least 1 (or -1). A value WordPress refuses here
 * (an address that is not http(s), an email that is not one, an unknown time zone, a language that is not
 * installed) leaves the stored value as it is, without an error, as WordPress does. Options without a
 * rule (use_smilies, default_post_format, show_on_front, site_logo, ...) are stored as given.
 */
import { ksesData, specialChars } from '../content/render/kses.ts';
import { isEmail, sanitizeEmail, sanitizeUrl } from '../rest/formatting.ts';
import { phpString, toInt } from '../rest/php.ts';

/** What happens to a value: stored as `value`, or refused (the option keeps its stored value). */
export type SanitizedOption = { keep: false; value: unknown } | { keep: true };

/** Languages installed besides the built-in en_US (get_available_languages()): none. */
const INSTALLED_LANGUAGES: readonly string[] = [];

/** PHP's strip_tags() as far as option values need it (a `<` followed by white space opens no tag). */
function stripTags(text: string): string {
  return text.replace(/<(?!\s)[^>]*(>|$)/g, '');
}

/**
 * Whether a zone is in PHP's timezone_identifiers_list(DateTimeZone::ALL_WITH_BC), as far as Node can tell:
 * a zone its ICU knows (canonical names and the old aliases such as `US/Eastern`), spelled with PHP's
 * capitals (PHP compares case-sensitively; ICU does not, so each part must start with a capital).
 */
export function isKnownTimeZone(zone: string): boolean {
  if (!zone.split('/').every((part) => /^[A-Z]/.test(part))) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** sanitize_option(option, value) for a non-null value. */
export function sanitizeOption(option: string, value: unknown): SanitizedOption {
  const store = (v: unknown): SanitizedOption => ({ keep: false, value: v });
  switch (option) {
    case 'blogname':
    case 'blogdescription':
      // esc_html(): `& < > " '` escaped, entities already there kept.
      return store(specialChars(phpString(value), true));
    case 'admin_email': {
      const email = sanitizeEmail(phpString(value));
      return isEmail(email) ? store(email) : { keep: true };
    }
    case 'siteurl': {
      const url = phpString(value);
      return /http(s?):\/\/(.+)/i.test(url) ? store(sanitizeUrl(url)) : { keep: true };
    }
    case 'date_format':
    case 'time_format':
      return store(ksesData(stripTags(phpString(value))));
    case 'page_on_front':
    case 'page_for_posts':
    case 'default_category':
    case 'start_of_week':
    case 'site_icon':
      return store(Math.abs(toInt(value)));
    case 'posts_per_page': {
      const n = toInt(value);
      return store(n === 0 ? 1 : n < -1 ? Math.abs(n) : n);
    }
    case 'default_ping_status':
    case 'default_comment_status':
      return store(value === '0' || value === 0 || value === '' ? 'closed' : value);
    case 'timezone_string': {
      const zone = phpString(value);
      return zone === '' || zone === '0' || isKnownTimeZone(zone) ? store(value) : { keep: true };
    }
    case 'WPLANG': {
      const lang = phpString(value);
      return lang === '' || lang === '0' || INSTALLED_LANGUAGES.includes(lang) ? store(value) : { keep: true };
    }
    default:
      return store(value);
  }
}
