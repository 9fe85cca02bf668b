/**
 * Brand mapping between the WordPress oracle and the CMS: `wp-json` -> `cms-json`, `wp/v2` -> `cms/v2`,
 * `X-WP-` -> `X-CMS-`, the `wp:` curie -> `cms:`, and the oracle's host -> ours.
 */
export function wpToCms(
  value: unknown,
  hosts: { from: string; to: string } = { from: 'http://127.0.0.1:8088', to: 'http://cms.test' },
): unknown {
  const text = JSON.stringify(value)
    .split(hosts.from)
    .join(hosts.to)
    .replace(/\/wp-json\//g, '/cms-json/')
    .replace(/wp\/v2/g, 'cms/v2')
    .replace(/"wp:/g, '"cms:')
    .replace(/"name":"wp","href":"https:\/\/api\.w\.org\/\{rel\}"/g, '"name":"cms","href":"https://api.w.org/{rel}"')
    .replace(/X-WP-/g, 'X-CMS-');
  return JSON.parse(text);
}
