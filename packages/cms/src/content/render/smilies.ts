/**
 * Text smilies turned into emoji as WordPress does when the `use_smilies` option is on (convert_smilies):
 * `:)` becomes 🙂 when it stands between spaces, outside tags and outside code, pre, style, script and
 * textarea elements. `:mrgreen:`, the one image smiley, becomes an <img> under `imageBaseUrl`.
 */
import { escAttr } from './html.ts';
import { SPACES } from './texturize.ts';

const SMILIES: Record<string, string> = {
  ':mrgreen:': 'mrgreen.png',
  ':neutral:': '\u{1F610}',
  ':twisted:': '\u{1F608}',
  ':arrow:': '\u{27A1}',
  ':shock:': '\u{1F62F}',
  ':smile:': '\u{1F642}',
  ':???:': '\u{1F615}',
  ':cool:': '\u{1F60E}',
  ':evil:': '\u{1F47F}',
  ':grin:': '\u{1F600}',
  ':idea:': '\u{1F4A1}',
  ':oops:': '\u{1F633}',
  ':razz:': '\u{1F61B}',
  ':roll:': '\u{1F644}',
  ':wink:': '\u{1F609}',
  ':cry:': '\u{1F625}',
  ':eek:': '\u{1F62E}',
  ':lol:': '\u{1F606}',
  ':mad:': '\u{1F621}',
  ':sad:': '\u{1F641}',
  '8-)': '\u{1F60E}',
  '8-O': '\u{1F62F}',
  ':-(': '\u{1F641}',
  ':-)': '\u{1F642}',
  ':-?': '\u{1F615}',
  ':-D': '\u{1F600}',
  ':-P': '\u{1F61B}',
  ':-o': '\u{1F62E}',
  ':-x': '\u{1F621}',
  ':-|': '\u{1F610}',
  ';-)': '\u{1F609}',
  '8O': '\u{1F62F}',
  ':(': '\u{1F641}',
  ':)': '\u{1F642}',
  ':?': '\u{1F615}',
  ':D': '\u{1F600}',
  ':P': '\u{1F61B}',
  ':o': '\u{1F62E}',
  ':x': '\u{1F621}',
  ':|': '\u{1F610}',
  ';)': '\u{1F609}',
  ':!:': '\u{2757}',
  ':?:': '\u{2753}',
};

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

// Grouped by first character, longest-sorting first, as smilies_init() builds it.
const SMILIES_REGEX = (() => {
  const keys = Object.keys(SMILIES).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const groups: string[] = [];
  let current = '';
  let alternatives: string[] = [];
  const flush = () => {
    if (current !== '')
      groups.push(`(?<=${SPACES}|^)${escapeRegExp(current)}(?:${alternatives.join('|')})(?=${SPACES}|$)`);
  };
  for (const key of keys) {
    const first = key[0] as string;
    if (first !== current) {
      flush();
      current = first;
      alternatives = [];
    }
    alternatives.push(escapeRegExp(key.slice(1)));
  }
  flush();
  return new RegExp(groups.join('|'), 'gm');
})();

const NEEDS_LOOK = /[:;8]/;
const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'jpe', 'gif', 'png', 'webp'];
const IGNORED = /^<(code|pre|style|script|textarea)[^>]*>/;

/** convert_smilies(). */
export function convertSmilies(text: string, imageBaseUrl: string): string {
  // Every smiley starts with one of these.
  if (!NEEDS_LOOK.test(text)) return text;
  const parts = text.split(/(<.*?>)/);
  let ignoring = '';
  let out = '';
  for (let part of parts) {
    if (ignoring === '') {
      const m = IGNORED.exec(part);
      if (m) ignoring = m[1] as string;
    }
    if (ignoring === '' && part.length > 0 && part[0] !== '<') {
      part = part.replace(SMILIES_REGEX, (match) => translate(match.trim(), imageBaseUrl));
    }
    if (ignoring !== '' && part === `</${ignoring}>`) ignoring = '';
    out += part;
  }
  return out;
}

function translate(smiley: string, imageBaseUrl: string): string {
  const img = SMILIES[smiley] ?? smiley;
  const ext = /\.([^.]+)$/.exec(img)?.[1]?.toLowerCase();
  if (ext === undefined || !IMAGE_EXTENSIONS.includes(ext)) return img;
  return `<img src="${escAttr(imageBaseUrl + img)}" alt="${escAttr(smiley)}" class="wp-smiley" style="height: 1em; max-height: 1em;" />`;
}
