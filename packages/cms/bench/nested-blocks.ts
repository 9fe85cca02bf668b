/**
 * How block rendering scales with nesting when dynamic blocks are involved (a measurement, not a test: it
 * prints times, nothing checks them). Each shape is rendered at several depths; a time that doubles with
 * the depth is linear, one that quadruples is quadratic. The dynamic renderers are stand-ins (nothing in
 * the CMS registers one): `core/latest-posts` ignores its inner HTML, as WordPress's does; `core/archives`
 * here keeps it, as a container block would.
 *
 *   npx tsx packages/cms/bench/nested-blocks.ts            # depths 1000, 2000, 4000
 *   NESTED_DEPTHS=2000,8000 npx tsx packages/cms/bench/nested-blocks.ts
 */
import { BlockRegistry, parseBlocks } from '../src/content/render/blocks.ts';

const registry = new BlockRegistry();
registry.registerDynamic('core/latest-posts', () => '<ul class="wp-block-latest-posts"><li>x</li></ul>');
registry.registerDynamic('core/archives', (_attrs, inner) => `<div class="wp-block-archives">${inner}</div>`);

const open = '<!-- wp:group --><div class="wp-block-group">';
const close = '</div><!-- /wp:group -->';
const shapes: Record<string, (depth: number) => string> = {
  'groups only': (n) => `${open.repeat(n)}x${close.repeat(n)}`,
  'a dynamic leaf in each group': (n) => `${`${open}<!-- wp:latest-posts /-->`.repeat(n)}${close.repeat(n)}`,
  'a dynamic leaf after each group': (n) => `${open.repeat(n)}${`<!-- wp:archives /-->${close}`.repeat(n)}`,
  'groups in dynamic blocks that drop their inner HTML': (n) =>
    `${`${open}<!-- wp:latest-posts -->`.repeat(n)}x${`<!-- /wp:latest-posts -->${close}`.repeat(n)}`,
  'groups in dynamic blocks that keep their inner HTML': (n) =>
    `${`${open}<!-- wp:archives -->`.repeat(n)}x${`<!-- /wp:archives -->${close}`.repeat(n)}`,
};

const depths = (process.env.NESTED_DEPTHS ?? '1000,2000,4000').split(',').map(Number);
for (const [name, make] of Object.entries(shapes)) {
  // Warm up the code paths first.
  for (let i = 0; i < 3; i++) registry.render(make(100), { containerCounter: 0 });
  const cells: string[] = [];
  for (const depth of depths) {
    const content = make(depth);
    let start = performance.now();
    const blocks = parseBlocks(content);
    const parse = performance.now() - start;
    start = performance.now();
    const state = { containerCounter: 0 };
    let length = 0;
    for (const block of blocks) length += registry.renderBlock(block, state).length;
    const render = performance.now() - start;
    cells.push(`${depth}: parse ${parse.toFixed(0)} ms, render ${render.toFixed(0)} ms (${length} chars)`);
  }
  console.log(`${name}\n  ${cells.join('\n  ')}`);
}
