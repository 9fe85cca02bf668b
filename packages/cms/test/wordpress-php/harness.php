<?php
/**
 * Differential-test harness: loads WordPress's own formatting code (no database, no HTTP) and runs the
 * calls read as JSON from stdin, printing their results as JSON. The TypeScript ports are compared with
 * these results. Only the pure text functions are exposed.
 *
 * Usage: echo '[{"fn":"wptexturize","args":["..."]}]' | php harness.php /usr/share/wordpress
 */
$root = rtrim($argv[1] ?? '/usr/share/wordpress', '/') . '/';
define('ABSPATH', $root);
define('WPINC', 'wp-includes');
$GLOBALS['locale'] = 'en_US';
require ABSPATH . WPINC . '/plugin.php';
require ABSPATH . WPINC . '/pomo/translations.php';
require ABSPATH . WPINC . '/l10n.php';
require ABSPATH . WPINC . '/functions.php';
function is_multisite() { return false; }
function is_admin() { return false; }
// _wp_specialchars() (esc_html) reads the charset from the autoloaded options.
function wp_cache_get($key = '') { return $key === 'alloptions' ? ['blog_charset' => 'UTF-8'] : false; }
function wp_installing() { return false; }
function wp_cache_set() { return true; }
function includes_url($path = '') { return 'http://example.test/wp-includes/' . $path; }
function site_url() { return 'http://example.test'; }
foreach (['use_smilies' => 1, 'blog_charset' => 'UTF-8', 'use_balanceTags' => 0, 'home' => 'http://example.test', 'siteurl' => 'http://example.test'] as $name => $value) {
    add_filter('pre_option_' . $name, static fn() => $value);
}
require ABSPATH . WPINC . '/formatting.php';
require ABSPATH . WPINC . '/kses.php';
require ABSPATH . WPINC . '/shortcodes.php';
require ABSPATH . WPINC . '/class-wp-block-parser.php';
smilies_init();
// As default-filters.php does: a '<' that opens no tag is kept as an entity by every kses call.
add_filter('pre_kses', 'wp_pre_kses_less_than');
add_filter('sanitize_title', 'sanitize_title_with_dashes', 'sanitize_title_for_query', 10, 3);
// The shortcodes a default install registers; only their names matter to the functions tested here.
foreach (['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'] as $tag) {
    add_shortcode($tag, static fn($atts, $content = '') => "[[rendered:$tag]]");
}

// The save filters default-filters.php puts on term names and users' names (pre_term_name, pre_user_display_name,
// pre_user_first_name, pre_user_last_name, pre_user_nickname), run on slashed data as sanitize_term()/wp_insert_user() do.
foreach (['sanitize_text_field' => 10, 'wp_filter_kses' => 10, '_wp_specialchars' => 30] as $filter => $priority) {
    add_filter('pre_term_name', $filter, $priority);
}
function cms_pre_term_name($value) { return wp_unslash(apply_filters('pre_term_name', wp_slash($value))); }
// pre_user_url and pre_user_email as default-filters.php registers them.
foreach (['wp_strip_all_tags', 'sanitize_url', 'wp_filter_kses'] as $filter) add_filter('pre_user_url', $filter);
foreach (['trim', 'sanitize_email', 'wp_filter_kses'] as $filter) add_filter('pre_user_email', $filter);
function cms_pre_user_url($value) { return wp_unslash(apply_filters('pre_user_url', wp_slash($value))); }
function cms_pre_user_email($value) { return wp_unslash(apply_filters('pre_user_email', wp_slash($value))); }

$allowed = [
    'cms_pre_term_name', 'cms_pre_user_url', 'cms_pre_user_email', 'sanitize_text_field', '_wp_specialchars',
    'wptexturize', 'wpautop', 'shortcode_unautop', 'convert_chars', 'convert_smilies', 'wp_trim_words',
    'sanitize_title', 'sanitize_title_with_dashes', 'sanitize_title_for_query', 'remove_accents', 'force_balance_tags', 'strip_shortcodes',
    'normalize_whitespace', 'wp_strip_all_tags', 'wp_kses_post', 'wp_filter_kses', 'wp_kses_data',
    'utf8_uri_encode', 'wp_html_split', 'esc_url', 'esc_attr', 'esc_html',
    // PHP's own, as wp_insert_term() uses it to compare term names
    'strtolower', 'sanitize_user',
];
$calls = json_decode(stream_get_contents(STDIN), true);
$out = [];
foreach ($calls as $call) {
    $fn = $call['fn'];
    if (!in_array($fn, $allowed, true)) {
        fwrite(STDERR, "function not allowed: $fn\n");
        exit(2);
    }
    $out[] = $fn(...$call['args']);
}
echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE);
